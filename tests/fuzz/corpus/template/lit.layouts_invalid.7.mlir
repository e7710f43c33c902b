
// Two lanes holding one accumulator element (lane bit 4 repeats bit 2) leave another unowned.
// expected-error @+1 {{matrix_instr 'bad': acc [16, 8]: element (0, 0) is held 2 time(s), not 1}}
#bad = #tj.matrix_instr<"bad", m = 16, n = 8, k = 16, lanes = 32, acc = <reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [1, 0]]>>
