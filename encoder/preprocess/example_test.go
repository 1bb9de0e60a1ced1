package preprocess_test

import (
	"fmt"
	"os"

	"github.com/litert-go/litert-go/encoder/preprocess"
)

func ExamplePreprocessImage() {
	data, err := os.ReadFile("testdata/test-1.jpeg")
	if err != nil {
		fmt.Println(err)
		return
	}
	img, err := preprocess.DecodeImage(data, preprocess.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// SmolVLM's mmproj: 512-pixel tiles of 16-pixel patches, longest edge 1536
	half := [3]float32{0.5, 0.5, 0.5}
	p, err := preprocess.NewParams("idefics3", 512, 16, half, half,
		preprocess.Options{ScaleFactor: 4, PreprocImageSize: 1536})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := preprocess.PreprocessImage(img, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%dx%d image: overview %dx%d, %d tiles in a %dx%d grid\n",
		img.W, img.H, out.Overview.W, out.Overview.H, len(out.Entries), out.GridX, out.GridY)
	// Output: 640x488 image: overview 512x512, 9 tiles in a 3x3 grid
}

func ExampleWhisperMel() {
	data, err := os.ReadFile("testdata/test-2.mp3")
	if err != nil {
		fmt.Println(err)
		return
	}
	mels, err := preprocess.WhisperMel(data, 128, preprocess.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d window(s) of %d×%d\n", len(mels), mels[0].NMel, mels[0].NFrames)
	// Output: 1 window(s) of 128×3000
}
