# YINSH Zero. `make test` is the test command CI runs (see README.md and .ci/run).
GO ?= go

.PHONY: build test race vet fuzz bench torch torch-setup torch-test torch-bench

build:
	$(GO) build -o bin/yinsh ./cmd/yinsh

test:
	$(GO) test ./...

vet:
	gofmt -l . | grep -v '^third_party/' | (! grep .)
	$(GO) vet ./...

# the concurrent packages under the race detector: the one list, shared with .ci/run
race:
	bash scripts/race.sh

# every fuzz target of the module, FUZZTIME each (default 30s); see scripts/fuzz.sh
fuzz:
	bash scripts/fuzz.sh

bench:
	GOMAXPROCS=1 $(GO) run ./cmd/yinsh bench playouts --games 20000 --seed 1
	$(GO) test ./env -run XXX -bench . -benchmem -cpu 1

# bin/yinsh-torch: the CLI with the libtorch backend (backend: torch in configs, --backend torch in
# arena, play, engine, analyze, fit, datasets generate). Fetches libtorch on first use (~690 MB,
# cached in ~/.cache/yinsh), then prints the environment to source for other torch builds.
torch:
	@eval "$$(bash scripts/libtorch.sh)" && GOWORK="$$PWD/go.work" $(GO) build -tags torch -o bin/yinsh-torch ./cmd/yinsh && \
		echo "built bin/yinsh-torch (runs as is: it carries an rpath to libtorch)" && \
		echo "for other torch builds and tests: . ~/.cache/yinsh/torch.env; export GOWORK=$$PWD/go.work"

torch-setup:
	bash scripts/libtorch.sh >/dev/null

torch-test:
	bash scripts/test-torch.sh

torch-bench:
	bash scripts/bench-torch.sh
