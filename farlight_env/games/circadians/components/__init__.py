"""Circadians components: the frozen model (`model`), the file format (`schema`), the checks on
every file (`checks`) and on the project's reconstruction (`reconstruction`), and loading (`io`)."""

from .checks import check_components
from .io import components_from_dict, components_hash, load_components, standard_components
from .model import Components
from .reconstruction import reconstruction_report
from .schema import SCHEMA_VERSION, ComponentFileError

__all__ = [
    "SCHEMA_VERSION",
    "ComponentFileError",
    "Components",
    "check_components",
    "components_from_dict",
    "components_hash",
    "load_components",
    "reconstruction_report",
    "standard_components",
]
