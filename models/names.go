package models

import (
	"math"
	"strconv"
)

// blockName is the tensor name prefix of block i, "blk.i.".
func blockName(i int) string { return "blk." + strconv.Itoa(i) + "." }

// invSqrt is 1/√n as float32, the usual attention scale for heads of n.
func invSqrt(n int) float32 { return float32(1 / math.Sqrt(float64(n))) }
