// Malformed templates are reported as mlir-opt reports them: path:line:col, the message, the
// source line with a caret under the place, and notes with their own locations.
// RUN: not tilejit compile %S/Inputs/undeclared_value.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=UNDECLARED --strict-whitespace
// RUN: not tilejit compile %S/Inputs/redefined_value.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=REDEFINED --strict-whitespace
// UNDECLARED: undeclared_value.mlir:5:28: error: use of undeclared SSA value name
// UNDECLARED-NEXT: {{^}}    %sum = arith.addi %c0, %offset : index
// UNDECLARED-NEXT: {{^}}                           ^
// REDEFINED: redefined_value.mlir:5:5: error: redefinition of SSA value '%c0'
// REDEFINED-NEXT: {{^}}    %c0 = arith.constant 1 : index
// REDEFINED-NEXT: {{^}}    ^
// REDEFINED-NEXT: redefined_value.mlir:4:5: note: previously defined here
// REDEFINED-NEXT: {{^}}    %c0 = arith.constant 0 : index
