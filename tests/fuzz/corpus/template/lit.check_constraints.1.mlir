
// expected-error@+1 {{template 'rejects' rejects this specialization: partition_size must be a multiple of block_n (block_n=48, partition_size=100)}}
tj.template @rejects attributes {tj.parameters = {block_n = 48 : i64, partition_size = 100 : i64}} {
  tj.constraint "partition_size must be a multiple of block_n" {
    %partition = arith.constant 100 : i64
    %n = arith.constant 48 : i64
    %rem = arith.remsi %partition, %n : i64
    %zero = arith.constant 0 : i64
    %ok = arith.cmpi eq, %rem, %zero : i64
    tj.yield %ok : i1
  } {tj.parameters_read = ["block_n", "partition_size"]}
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @rejects() {
  }
}
