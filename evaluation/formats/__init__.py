"""The files agents write and read back, one msgspec format module per file type: a
tournament's or evaluation's journal (`journal`) and an evaluation's scorecard (`scorecard`)."""
