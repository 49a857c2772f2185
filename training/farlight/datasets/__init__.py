"""Minari datasets of recorded games for offline RL: collecting them (`collect`), their format
(`format`) and its checks (`errors`); needs the `interop` extra for Minari itself."""
