"""Make nicsim.analytic importable without the compiled core.

The analytic package is pure Python; if the nicsim package itself cannot be
imported yet (no built extension), register a bare package so that its
subpackages still load from the source tree.
"""

import sys
import types
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

try:
    import nicsim  # noqa: F401
except ImportError:
    stub = types.ModuleType("nicsim")
    stub.__path__ = [str(PYTHON_DIR / "nicsim")]
    sys.modules["nicsim"] = stub
