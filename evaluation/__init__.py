"""Measuring agents: games between them (`arena`), tournaments and ratings (`tournament`), the
benchmark protocols farlight-eval-v1 (`eval_v1`) and v2 (`eval_v2`), exploitability's
evaluation set (`exploit`), and the signed journals and file formats they keep (`journal`,
`run_key`, `formats`). `evaluate(agent)` runs farlight-eval-v1 and returns its scorecard.
"""

from evaluation.eval_v1 import evaluate

__all__ = ["evaluate"]
