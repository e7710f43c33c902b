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
