// cannbot-recipe
// name: row-reduce
// families: reduction
// dtypes: float, half, bfloat16
// generated: reduce
// summary: each row combined into LANES independent partial results (several vector accumulators, so the loop vectorises and the adds or compares overlap), 16-bit rows widened a tile at a time, the partials folded and the spec's finish applied
// params: LANES=32,64,16
// ---
// A generated recipe: cannbot writes the kernel below this header from the op's spec (its
// `reduce` table: sum, max or min over the last axis, and a finish such as `acc / cols`), so
// one recipe serves every row reduction in fp32, fp16 and bf16. A plain running sum is one
// dependency chain: each add waits for the last (3-4 cycles), and the compiler may not split
// it into vector lanes without reassociating. Here each of LANES partial results is its own
// chain, combined in element order, so the lanes loop vectorises as written (LANES=32 is four
// AVX2 vectors or two AVX-512 ones in flight) and reads the row at memory speed. Splitting the
// sum also makes it more accurate than one long chain, well inside the op's tolerance.
