"""Write the shipped `ppo` network as a bidding-only policy: its bids, the heuristic for the
rest (the baseline the bidder row of docs/agents.md is compared with).

    python scripts/ppo_bids.py runs/ppo_bids.pt
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from agents.farlight.policy import SHIPPED_POLICY, save_policy


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/ppo_bids.py OUT.pt")
    payload = torch.load(SHIPPED_POLICY, map_location="cpu", weights_only=True)
    config = {**payload["config"], "name": "ppo-bids"}
    config |= {"learner_decisions": "bidding", "autopilot": "heuristic"}
    save_policy(payload["state_dict"], config, Path(sys.argv[1]))
    print(f"wrote {sys.argv[1]}: ppo's network for bids, the heuristic for the rest")


if __name__ == "__main__":
    main()
