"""The tests import tilejit from this checkout's python/ (the installed copy is tested by
test_package.py) and the references beside them; every kernel cache is a private one."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
os.environ.setdefault("TILEJIT_CACHE_DIR", tempfile.mkdtemp(prefix="tilejit-pytest-"))
