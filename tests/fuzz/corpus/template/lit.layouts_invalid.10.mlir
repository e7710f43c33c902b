
// expected-error @+1 {{matrix_instr 'odd': m, n, k and lanes must be powers of two, got 12, 8, 16, 32}}
#odd = #tj.matrix_instr<"odd", m = 12, n = 8, k = 16, lanes = 32, acc = <reg = [], lane = []>>
