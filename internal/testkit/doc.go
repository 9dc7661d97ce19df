// Package testkit is the root of paddock's test support: nothing under it
// is part of what `paddock serve` runs.
//
//   - agentenv installs, configures and drives the pinned real agent CLIs
//     in a throw-away home against the mock model (also used by
//     `make demo`);
//   - agenttest is its testing.TB face, and records the fixtures under
//     testdata/ (`make fixtures`);
//   - mockmodel is the mock model server the real CLIs talk to (Anthropic,
//     OpenAI Responses and Chat Completions shapes);
//   - fulldisk mounts a small tmpfs a test can fill and free (skips
//     where mounting is not allowed; fails under TMPFS_REQUIRED=1);
//   - fuzzseed gathers the fuzz targets' seeds from testdata/ and
//     ../shared/fixtures, bounded and spread over every file;
//   - sharedtest finds the recorded fixtures that live outside the
//     repository, or skips (fails under SHARED_REQUIRED=1) when a clone
//     has none.
package testkit
