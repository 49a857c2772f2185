"""Training with RLlib: the multi-agent env (`env`), the network as an RLModule (`module`), the
algorithm's config (`config`) and the league run on Ray (`self_play`); needs the `rllib` extra."""
