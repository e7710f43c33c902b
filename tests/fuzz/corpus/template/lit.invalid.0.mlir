// RUN: tj-opt %s -split-input-file -verify-diagnostics
// Malformed templates are rejected with a diagnostic at the offending line.

tj.template @no_kernel {
  // expected-error@+1 {{default 100 : i64 is outside the domain 64, 128}}
  tj.param @head_size : int values [64, 128] default 100
}
