// cannbot-recipe
// name: elementwise-map
// families: activation, elementwise, binary
// dtypes: float, half, bfloat16
// generated: elementwise
// summary: the op's own element function (its spec's `elementwise` expression) in one vectorised pass: branch-free polynomial math instead of libm calls (no subnormal results), 16-bit elements widened to float tiles, broadcast operands read once per row or block, non-temporal stores for large outputs
// params: UNROLL=2,1,4 STREAM=1,0
// ---
// A generated recipe: cannbot writes the kernel below this header from the op's spec, so one
// recipe serves every activation, math and binary op in fp32, fp16 and bf16. What makes it
// fast is what a plain loop over std::exp lacks:
//  * the math is cannbot's own (cb_exp, cb_tanh, ...): straight-line float arithmetic that the
//    compiler vectorises, where a call into libm keeps the loop scalar;
//  * results that would be subnormal are flushed to zero inside the functions, so no element
//    costs a microcode assist on Intel cores;
//  * fp16 and bf16 elements are widened to a float tile (F16C where the CPU has it), computed
//    in float, and rounded back to nearest even, so the element loop is pure float and
//    vectorises whatever the dtypes;
//  * a broadcast operand ([rows, cols] op [cols], [n, c, h, w] op [c]) is read along a row or
//    once per inner block, not by a division per element;
//  * the output is written a tile at a time, with non-temporal stores from 4 MB (STREAM=1):
//    a plain store reads each line before writing it, so a memory-bound op moves a third less.
// UNROLL is the inner loop's unroll count.
