"""Enough of pytest for the GPU test files to run where pytest is not installed (the GPU
machine's image may lack it): raises(match=...), skip, importorskip, and a runner of a module's
test_* functions that prints PASS / FAIL / SKIP lines and the closing count."""
import importlib
import re
import sys
import traceback


class Skipped(Exception):
    pass


def skip(reason, allow_module_level=False):
    raise Skipped(reason)


def importorskip(name):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise Skipped(f"{name} is not installed ({e})") from None


class raises:
    def __init__(self, kind, match=None):
        self.kind, self.match = kind, match

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            raise AssertionError(f"DID NOT RAISE {self.kind.__name__}")
        if not issubclass(kind, self.kind):
            return False
        if self.match and not re.search(self.match, str(value)):
            raise AssertionError(f"{value!r} does not match {self.match!r}")
        return True


def run(namespace):
    """Runs every test_* function of a module namespace; the exit status for sys.exit."""
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for name, test in list(namespace.items()):
        if not (name.startswith("test_") and callable(test)):
            continue
        try:
            test()
            counts["passed"] += 1
            print(f"PASS {name}")
        except Skipped as e:
            counts["skipped"] += 1
            print(f"SKIP {name}: {e}")
        except Exception:  # noqa: BLE001 - a failure of any kind is reported, then the next runs
            counts["failed"] += 1
            print(f"FAIL {name}\n{traceback.format_exc()}")
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit("run a test file, not this helper")
