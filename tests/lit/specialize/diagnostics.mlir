// Malformed templates are reported as mlir-opt reports them: path:line:col, the message, the
// source line with a caret under the place, and notes with their own locations; an undeclared
// value is named, and a '{' left open is reported where it opens, not only at the end of the
// file (where MLIR's parser notices), with a note there.
// RUN: not tilejit compile %S/Inputs/undeclared_value.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=UNDECLARED --strict-whitespace --implicit-check-not="never closed"
// RUN: not tilejit compile %S/Inputs/redefined_value.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=REDEFINED --strict-whitespace
// UNDECLARED: undeclared_value.mlir:5:28: error: use of undeclared SSA value name '%offset'{{$}}
// UNDECLARED-NEXT: {{^}}    %sum = arith.addi %c0, %offset : index
// UNDECLARED-NEXT: {{^}}                           ^
// REDEFINED: redefined_value.mlir:5:5: error: redefinition of SSA value '%c0'
// REDEFINED-NEXT: {{^}}    %c0 = arith.constant 1 : index
// REDEFINED-NEXT: {{^}}    ^
// REDEFINED-NEXT: redefined_value.mlir:4:5: note: previously defined here
// REDEFINED-NEXT: {{^}}    %c0 = arith.constant 0 : index
// RUN: not tilejit compile %S/Inputs/forward_use_type.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=FORWARD --strict-whitespace
// FORWARD: forward_use_type.mlir:5:5: error: definition of SSA value '%b#0' has type 'i32'
// FORWARD-NEXT: {{^}}    %b = arith.constant 0 : i32
// FORWARD-NEXT: {{^}}    ^
// FORWARD-NEXT: forward_use_type.mlir:4:21: note: previously used here with type 'index'
// FORWARD-NEXT: {{^}}    %a = arith.addi %b, %b : index
// FORWARD-NEXT: {{^}}                    ^
// RUN: not tilejit compile %S/Inputs/unclosed_loop.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=LOOP --strict-whitespace
// LOOP: malformed template {{.*}}unclosed_loop.mlir:
// LOOP-NEXT: unclosed_loop.mlir:7:38: error: this '{' is never closed
// LOOP-NEXT: {{^}}    scf.for %i = %c0 to %c1 step %c1 {
// LOOP-NEXT: {{^}}                                     ^
// LOOP-NEXT: unclosed_loop.mlir:10:1: note: the file ends here, inside the '{' above; the parser reports:
// LOOP-NEXT: {{^}}}
// LOOP-NEXT: {{^}}^
// LOOP-NEXT: unclosed_loop.mlir:10:2: error:
// RUN: not tilejit compile %S/Inputs/unclosed_template.mlir --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=TEMPLATE --strict-whitespace
// TEMPLATE: unclosed_template.mlir:2:32: error: this '{' is never closed
// TEMPLATE-NEXT: {{^}}tj.template @unclosed_template {
// TEMPLATE-NEXT: {{^}}                               ^
// TEMPLATE-NEXT: unclosed_template.mlir:6:3: note: the file ends here
