// The skeletons shared by the group attention kernels of go_attn_amd64.s
// (AVX2) and go_attn512_amd64.s (AVX-512): the scores' argument loads and
// F16 setup (GDOTS_ARGS, GDF16SETUP) and the value sums (GWSUM).

// GDOTS_ARGS loads the arguments of a group scores kernel name(s, q, k
// *T, kstride, nrows, hd, sstride int): s R8, q DI, k SI, kstride DX,
// nrows CX, hd BX, sstride R10.
#define GDOTS_ARGS \
	MOVQ s+0(FP), R8;         \
	MOVQ q+8(FP), DI;         \
	MOVQ k+16(FP), SI;        \
	MOVQ kstride+24(FP), DX;  \
	MOVQ nrows+32(FP), CX;    \
	MOVQ hd+40(FP), BX;       \
	MOVQ sstride+48(FP), R10

// GDF16SETUP is the F16 scores' setup: float32 queries hd apart (R9 =
// hd*4 bytes, R11 = 3*R9), BX = a key row's hd*2 bytes.
#define GDF16SETUP \
	MOVQ BX, R9;          \
	SHLQ $2, R9;          \
	LEAQ (R9)(R9*2), R11; \
	SHLQ $1, BX

// GWSUM is the skeleton of the group value-sum kernels of go_attn_amd64.s
// (AVX2) and go_attn512_amd64.s (AVX-512): one control flow at two vector
// widths and for three cache types. GWSUM(name, HEADS) defines name(o, w
// *float32, v *byte, vstride, nrows, hd, wstride int): the weighted sum of
// nrows value rows (vstride bytes apart; F16, or Q8_0 or Q4_0 blocks) for
// the heads of one GQA group at once. o holds the heads' outputs hd floats
// apart, w their weights wstride bytes apart, and each value row's chunk
// is widened once for all the heads. HEADS(OP) applies a per-head op to
// every head; the including file defines, for its width and type:
//
//	GW_BIG, GW_SMALL         bytes of output in a big and a small column
//	                         block (hd*4 is a multiple of GW_SMALL)
//	GW_SETUP                 load the widening's constants, if any
//	GW_CHUNK                 set R11 to the row's chunk for the block at
//	                         AX (SI the first row, AX the byte column)
//	GW_WIDEN_BIG, _SMALL     prefetch and widen row R11's chunk of a block
//	GW_LOAD_BIG, _SMALL      per-head ops: load the block's sums from O,
//	GW_SUM_BIG, _SMALL       add the row times the head's weight at W,
//	GW_STORE_BIG, _SMALL     store the sums back to O
//
// Registers: R8 o, DI w, SI v, DX vstride, CX the end of w, BX hd*4,
// R14 3*hd*4, R9 wstride, R10 3*wstride, AX the block's byte column,
// R13 the block's outputs, R11 the row's chunk, R12 the row's weight.
#define GWSUM(name, HEADS) \
TEXT name(SB), NOSPLIT, $0-56;   \
	MOVQ o+0(FP), R8;            \
	MOVQ w+8(FP), DI;            \
	MOVQ v+16(FP), SI;           \
	MOVQ vstride+24(FP), DX;     \
	MOVQ nrows+32(FP), CX;       \
	MOVQ hd+40(FP), BX;          \
	MOVQ wstride+48(FP), R9;     \
	SHLQ $2, BX;                 \
	LEAQ (BX)(BX*2), R14;        \
	LEAQ (R9)(R9*2), R10;        \
	LEAQ (DI)(CX*4), CX;         \
	XORQ AX, AX;                 \
	GW_SETUP;                    \
gblkbig:;                        \
	LEAQ    GW_BIG(AX), R13;     \
	CMPQ    R13, BX;             \
	JGT     gblksmall;           \
	LEAQ    (R8)(AX*1), R13;     \
	HEADS(GW_LOAD_BIG);          \
	GW_CHUNK;                    \
	MOVQ    DI, R12;             \
growbig:;                        \
	CMPQ    R12, CX;             \
	JGE     gstorebig;           \
	GW_WIDEN_BIG;                \
	HEADS(GW_SUM_BIG);           \
	ADDQ    $4, R12;             \
	ADDQ    DX, R11;             \
	JMP     growbig;             \
gstorebig:;                      \
	HEADS(GW_STORE_BIG);         \
	ADDQ    $GW_BIG, AX;         \
	JMP     gblkbig;             \
gblksmall:;                      \
	CMPQ    AX, BX;              \
	JGE     gwdone;              \
	LEAQ    (R8)(AX*1), R13;     \
	HEADS(GW_LOAD_SMALL);        \
	GW_CHUNK;                    \
	MOVQ    DI, R12;             \
growsmall:;                      \
	CMPQ    R12, CX;             \
	JGE     gstoresmall;         \
	GW_WIDEN_SMALL;              \
	HEADS(GW_SUM_SMALL);         \
	ADDQ    $4, R12;             \
	ADDQ    DX, R11;             \
	JMP     growsmall;           \
gstoresmall:;                    \
	HEADS(GW_STORE_SMALL);       \
	ADDQ    $GW_SMALL, AX;       \
	JMP     gblksmall;           \
gwdone:;                         \
	VZEROUPPER;                  \
	RET
