
// expected-error @+1 {{matrix_instr 'short': acc has 4 lane bases; 32 lanes need 5}}
#short = #tj.matrix_instr<"short", m = 16, n = 8, k = 16, lanes = 32, acc = <reg = [[0, 1], [8, 0], [0, 4]], lane = [[0, 2], [1, 0], [2, 0], [4, 0]]>>
