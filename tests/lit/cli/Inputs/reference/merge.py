# merge_attn_states in numpy, as an author would write it for `tilejit run --reference`:
# LSE +inf (FA2's empty side) reads as -inf; an empty side's NaN output is never read.
import os
import numpy as np


def reference(prefix_output, prefix_lse, suffix_output, suffix_lse, **_):
    p = np.where(np.isposinf(prefix_lse), -np.inf, prefix_lse)
    s = np.where(np.isposinf(suffix_lse), -np.inf, suffix_lse)
    m = np.maximum(p, s)
    safe = np.where(np.isneginf(m), 0.0, m)
    pe, se = np.exp(p - safe), np.exp(s - safe)
    total = np.where(pe + se > 0, pe + se, 1.0)
    pw, sw = (pe / total).T[:, :, None], (se / total).T[:, :, None]
    with np.errstate(invalid="ignore"):
        out = np.where(pw > 0, pw * prefix_output, 0.0) + np.where(sw > 0, sw * suffix_output, 0.0)
    lse = np.where(np.isneginf(m), -np.inf, np.log(total) + safe)
    # Mutants of this file (the tests' wrong references), chosen by the environment.
    mutant = os.environ.get("MERGE_REFERENCE_MUTANT", "")
    if mutant == "scale":
        out = out * 1.01
    elif mutant == "raise":
        raise ValueError("this reference refuses")
    elif mutant == "shape":
        out = out[:, :, :-1]
    elif mutant == "missing":
        return {"output": out}
    return {"output": out, "output_lse": lse}
