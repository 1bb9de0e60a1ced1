package tokenizer

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
)

func TestZZInspect(t *testing.T) {
	if os.Getenv("INSPECT") == "" {
		t.Skip()
	}
	files, _ := filepath.Glob("../../shared/testdata/vocab/*.gguf")
	files = append(files, "../../shared/testdata/models/stories260K.gguf")
	for _, p := range files {
		f, err := gguf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("==", filepath.Base(p))
		var keys []string
		for _, k := range []string{"general.name", "general.architecture", "tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id", "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.seperator_token_id", "tokenizer.ggml.padding_token_id", "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token", "tokenizer.ggml.add_space_prefix", "tokenizer.ggml.remove_extra_whitespaces"} {
			if v, ok := f.Lookup(k); ok {
				keys = append(keys, fmt.Sprintf("%s=%v", k, v.Data))
			}
		}
		fmt.Println(strings.Join(keys, " "))
		toks, _ := f.Strings("tokenizer.ggml.tokens")
		types, _ := f.Ints("tokenizer.ggml.token_type")
		merges, _ := f.Strings("tokenizer.ggml.merges")
		fmt.Println("ntok", len(toks), "ntypes", len(types), "merges", len(merges))
		cnt := map[int64]int{}
		ex := map[int64][]string{}
		for i, ty := range types {
			cnt[ty]++
			if len(ex[ty]) < 6 && ty != 1 {
				ex[ty] = append(ex[ty], fmt.Sprintf("%d:%q", i, toks[i]))
			}
		}
		var ks []int
		for k := range cnt {
			ks = append(ks, int(k))
		}
		sort.Ints(ks)
		for _, k := range ks {
			fmt.Println(" type", k, cnt[int64(k)], ex[int64(k)])
		}
		f.Close()
	}
}
