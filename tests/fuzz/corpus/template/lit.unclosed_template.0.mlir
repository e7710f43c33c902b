// A string and a comment with braces do not count: "{" {
tj.template @unclosed_template {
  tj.param @name : string values ["{", "}"] default "{"
  tj.kernel @unclosed_template(
      %out: !tj.view<[4], f32>) {
  }
