"""Encoding layer: action index <-> engine Action, observation tensors and masks."""

from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder

__all__ = ["ActionCodec", "ObservationEncoder"]
