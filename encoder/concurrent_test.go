package encoder

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/native"
)

// TestConcurrent encodes on one Encoder from several goroutines at once
// (run with -race), on two threads (80×80 is enough patches for the
// attention's softmax to be shared between them): each result equals that
// of a serial run on one thread, bit for bit.
func TestConcurrent(t *testing.T) {
	b1 := native.NewGo(1)
	defer b1.Close()
	serial, err := Open(synthFile(t, "lfm2"), b1)
	require.NoError(t, err)
	b := native.NewGo(2)
	defer b.Close()
	e, err := Open(synthFile(t, "lfm2"), b)
	require.NoError(t, err)
	ctx := context.Background()
	sizes := [][2]int{{32, 32}, {48, 40}, {80, 80}, {16, 28}}
	imgs := make([]*Image, len(sizes))
	want := make([][]float32, len(sizes))
	for i, s := range sizes {
		imgs[i] = zeroImage(s[0], s[1])
		for j := range imgs[i].Data {
			imgs[i].Data[j] = inputValue(j + i)
		}
		want[i], _, err = serial.EncodeImageTensor(ctx, imgs[i])
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	got := make([][]float32, 2*len(sizes))
	errs := make([]error, len(got))
	for i := range got {
		wg.Go(func() { got[i], _, errs[i] = e.EncodeImageTensor(ctx, imgs[i%len(imgs)]) })
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.Equal(t, want[i%len(want)], got[i])
	}
}
