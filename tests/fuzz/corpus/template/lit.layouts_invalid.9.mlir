
// expected-error @+1 {{matrix_instr 'outside': a [16, 16]: lane 16 element 0 holds (16, 0), outside the 16x16 tile}}
#outside = #tj.matrix_instr<"outside", m = 16, n = 16, k = 16, lanes = 32, a = <reg = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]>, acc = <reg = [[2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]>>
