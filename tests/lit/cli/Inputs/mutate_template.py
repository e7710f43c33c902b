"""Writes a copy of a template with one text replaced (which must occur exactly once):
mutate_template.py SOURCE DEST OLD NEW ('\\n' in NEW starts a new line)."""
import sys

source, dest, old, new = sys.argv[1:5]
text = open(source).read()
if text.count(old) != 1:
    sys.exit(f"mutate_template: {old!r} occurs {text.count(old)} times in {source}, not once")
open(dest, "w").write(text.replace(old, new.replace("\\n", "\n")))
