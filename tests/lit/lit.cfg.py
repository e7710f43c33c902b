import os
import lit.formats

config.name = "tilejit"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
# Inputs folders hold what the tests read (templates, scripts), not tests.
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilejit_obj_root, "tests", "lit")
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(config.tilejit_obj_root, "bin"), config.llvm_tools_dir,
     config.environment.get("PATH", "")])
config.substitutions.append(("%templates", os.path.join(config.tilejit_src_root, "templates")))
config.substitutions.append(("%tilejit_lib", os.path.join(config.tilejit_obj_root, "bin", "libtilejit_c.so")))
config.substitutions.append(("%python", os.path.join(config.tilejit_src_root, "python")))
# A python3 with numpy for the tests of Python author references (`tilejit run --reference`):
# the first python3 in PATH may lack it where the system one has it.
import shutil
import subprocess
for candidate in [os.environ.get("TILEJIT_PYTHON", ""), shutil.which("python3") or "", "/usr/bin/python3"]:
    if candidate and subprocess.run([candidate, "-c", "import numpy"], capture_output=True).returncode == 0:
        config.environment["TILEJIT_PYTHON"] = candidate
        config.available_features.add("numpy")
        break
