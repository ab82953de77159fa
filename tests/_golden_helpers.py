"""The golden runs (`scripts/golden.py`) loaded once for the tests, and a core that forces one
configuration key in every document it runs."""
import importlib.util
import json
from pathlib import Path

_spec = importlib.util.spec_from_file_location("golden", Path(__file__).resolve().parent.parent / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


class Forced:
    """The core with one configuration key (`section.key`) forced to `value` in every document
    it runs."""

    def __init__(self, core, section: str, key: str, value):
        self._core, self._at, self._value = core, (section, key), value

    def __getattr__(self, name):
        return getattr(self._core, name)

    def run(self, doc: str) -> str:
        d = json.loads(doc)
        d[self._at[0]][self._at[1]] = self._value
        return self._core.run(json.dumps(d))
