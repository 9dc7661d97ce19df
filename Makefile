# paddock — the two commands a user needs are `make run` and `make test`.
GO       ?= go
BIN      ?= bin/paddock
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
# Counted in executions, not seconds: a duration -fuzztime races the fuzz
# coordinator's own deadline on Go 1.26 (golang/go#75804) and fails at random.
FUZZTIME ?= 50000x
# FUZZDIRS narrows make fuzz to the packages under these folders.
FUZZDIRS ?= .
ARGS     ?=
CORPUS   ?= /tmp/paddock-corpus

.PHONY: run build test generate check bench fuzz vendor-check e2e-deps demo fixtures icons corpus clean

## run: build paddock and start the dashboard with embedded defaults
run: build
	./$(BIN) serve $(ARGS)

## build: compile bin/paddock
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/paddock

## test: the whole suite (browser and ../shared tests skip with a message when absent,
## unless E2E_REQUIRED=1 / SHARED_REQUIRED=1)
test:
	$(GO) test -race -count=1 -timeout 25m ./...

## e2e-deps: install the pinned agent CLIs the end-to-end tests drive, into
## $$PADDOCK_AGENTS (default ~/.cache/paddock/agents), outside the repository
e2e-deps:
	bash .ci/install-agents

## demo: a mock model, paddock and real agent sessions (the CLIs from
## make e2e-deps) in a throw-away HOME, until Ctrl-C; flags in ARGS, e.g.
## make demo ARGS="--addr :8443 --http-addr :8080" next to a real paddock
demo:
	$(GO) build -o bin/paddock-demo ./cmd/paddock-demo
	@# exec: the demo is make's recipe process itself, so Ctrl-C reaches it
	@# alone and its clean stop is the recipe's exit status.
	exec env GO=$(GO) ./bin/paddock-demo $(ARGS)

## corpus: write the benchmark machine into $(CORPUS) (new or empty): 10,000
## sessions of every agent, about 1.2 GB, deterministic by -seed; flags in ARGS
corpus:
	$(GO) run ./cmd/paddock-corpus -o $(CORPUS) $(ARGS)

## icons: re-draw the app's PNG icons from static/icon.svg and
## static/icons/icon-maskable.svg with Debian's chromium; commit the result
icons:
	for s in 192 512; do \
	  printf '<body style="margin:0"><img src="%s" style="width:100vw;height:100vh;display:block">' "$(CURDIR)/static/icon.svg" > /tmp/paddock-icon.html; \
	  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --default-background-color=00000000 \
	    --window-size=$$s,$$s --screenshot=static/icons/icon-$$s.png file:///tmp/paddock-icon.html; done
	printf '<body style="margin:0"><img src="%s" style="width:100vw;height:100vh;display:block">' "$(CURDIR)/static/icons/icon-maskable.svg" > /tmp/paddock-icon.html
	chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=512,512 \
	  --screenshot=static/icons/icon-maskable-512.png file:///tmp/paddock-icon.html

## fixtures: re-record testdata/<cli>-<version>/ from the pinned real CLIs
## (make e2e-deps) driven against the mock model; commit the result
fixtures:
	E2E_REQUIRED=1 $(GO) test -count=1 -timeout 30m -run '^TestRecordFixtures$$' -v ./internal/testkit/agenttest -args -record

## generate: regenerate templ components and internal/markdown's chroma stylesheet
## and lexers (all generated files are committed; tests fail when they are stale)
generate:
	$(GO) tool templ generate ./views
	$(GO) generate ./internal/markdown

## check: formatting, vet, and generated code up to date
check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) tool templ generate ./views >/dev/null 2>&1
	@git diff --quiet -- views || { git diff --stat -- views; echo 'templ: generated code was stale; run make generate and commit'; exit 1; }

## bench: benchmarks (record results in BENCHMARKS.md with this command)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## fuzz: run every fuzz target briefly (FUZZTIME executions each): one
## instrumented test binary per package, run from the package's folder (its
## testdata/fuzz corpus) with the cache go test -fuzz keeps
fuzz:
	@set -e; bin=$$(mktemp -d); trap 'rm -rf "$$bin"' EXIT; cache=$$($(GO) env GOCACHE)/fuzz; \
	for dir in $$(grep -rl --include='*_test.go' --exclude-dir=.git '^func Fuzz' $(FUZZDIRS) | xargs -n1 dirname | sort -u); do \
	  pkg=$$(cd $$dir && $(GO) list .); \
	  $(GO) test -c -fuzz . -o "$$bin/fuzz.test" $$dir; \
	  for f in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)([a-z]* \*testing\.F).*/\1/p' $$dir/*_test.go); do \
	    echo "fuzz $$pkg $$f"; \
	    (cd $$dir && "$$bin/fuzz.test" -test.run='^$$' -test.fuzz="^$$f$$" -test.fuzztime=$(FUZZTIME) \
	      -test.fuzzcachedir="$$cache/$$pkg" -test.timeout=10m -test.paniconexit0); \
	  done; \
	done

## vendor-check: re-download the vendored htmx files from npm and compare checksums
vendor-check:
	@set -e; d=$$(mktemp -d); cd $$d; \
	npm pack --silent htmx.org@2.0.11 htmx-ext-ws@2.0.4 >/dev/null; \
	tar xzf htmx.org-2.0.11.tgz package/dist/htmx.min.js; cmp package/dist/htmx.min.js $(CURDIR)/static/vendor/htmx-2.0.11.min.js; \
	tar xzf htmx-ext-ws-2.0.4.tgz package/dist/ws.min.js; cmp package/dist/ws.min.js $(CURDIR)/static/vendor/htmx-ext-ws-2.0.4.min.js; \
	echo "vendored htmx files match npm"; rm -rf $$d

clean:
	rm -rf bin
