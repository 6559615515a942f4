/*
 * fuzz_spec: libFuzzer target for the spec parser and validator.
 * `make fuzz FUZZ_SECONDS=N` builds it with every source but main.c under
 * ASan/UBSan and runs it on tests/fuzz/corpus (seeds) plus build/fuzz/corpus.
 * Messages are collected, not printed; any crash, leak or sanitizer report
 * is a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "spec/spec.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s;

	/* base_dir holds nothing: relative body_file paths cannot be read */
	s = spec_parse_diag((const char *)data, size, "fuzz.yaml", "/nonexistent-fuzz-dir", &errs);
	if (s) {
		double *rates = NULL;
		spec_ladder_rungs(s, &rates);
		free(rates);
		spec_free(s);
	}
	sbuf_release(&errs);
	return 0;
}
