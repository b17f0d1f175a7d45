// The benchmark without a GPU: number formats, test data, shapes and errors; the timing methods,
// the engine search, the check and the report against the fake GPU of bench_fake_gpu.hpp.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "bench_fake_gpu.hpp"
#include "support/sandbox.hpp"

// Inside the namespace rather than with using-directives: the unity builds (asan, mingw) put
// several test files into one translation unit.
namespace cudnn_install::gpu {
namespace {

using test::fake_gpu;
using test::fake_gpu_log;
using test::FakeEngine;
using test::FakeGpuSetup;
using test::FakeKnob;
using test::FakeOutput;

FakeEngine engine(int64_t index, double ms, FakeOutput output = FakeOutput::Right, bool plans = true,
                  bool capturable = true, std::vector<int> notes = {}) {
  FakeEngine e;
  e.index = index;
  e.ms = ms;
  e.output = output;
  e.plans = plans;
  e.capturable = capturable;
  e.notes = std::move(notes);
  return e;
}

ConvShape tiny() { return {"tiny 3x3 4->4 @5", 2, 4, 5, 5, 4, 3, 3, 1, 1}; }

BenchOptions fake_options(DataType dtype = DataType::Fp16) {
  BenchOptions o;
  o.shapes = {tiny()};
  o.dtypes = {dtype};
  o.tiers = {Tier::Graph};
  o.timing = {2, 4, 5};
  o.search_timing = {1, 2, 2};
  o.settle_ms = 0;
  return o;
}

Result<BenchReport> run_fake(FakeGpuSetup setup, BenchOptions options) {
  auto libs = fake_gpu(std::move(setup));
  BenchServices services;
  services.load = [libs](const std::filesystem::path&) -> Result<std::shared_ptr<const Libraries>> { return libs; };
  BenchRequest request;
  request.library = "/fake/libcudnn.so.9";
  request.options = std::move(options);
  return bench(request, services);
}

// One result of a run that must succeed.
BenchResult only_result(FakeGpuSetup setup, BenchOptions options) {
  auto report = run_fake(std::move(setup), std::move(options));
  EXPECT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->results.size(), 1u);
  return report->results.front();
}

// The engines of the fake's executions from `from` on, each run of repeats as one entry.
std::vector<int64_t> engine_turns(size_t from = 0) {
  const auto& runs = test::fake_gpu_log().engine_runs;
  std::vector<int64_t> turns;
  for (size_t i = from; i < runs.size(); ++i)
    if (turns.empty() || turns.back() != runs[i]) turns.push_back(runs[i]);
  return turns;
}

int64_t source_count(const SearchStats& s, const std::string& name) {
  for (const auto& [source, count] : s.sources)
    if (source == name) return count;
  return 0;
}

}  // namespace

TEST(BenchData, InputsAreExactInEveryDataType) {
  for (std::uint64_t i = 0; i < 5000; ++i) {
    float v = input_value(i, 1);
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
    EXPECT_EQ(v * 8, std::round(v * 8));
    EXPECT_EQ(from_half_bits(to_half_bits(v)), v);
    EXPECT_EQ(from_bf16_bits(to_bf16_bits(v)), v);
  }
  EXPECT_NE(input_value(1, 1), input_value(1, 2));
}

TEST(BenchData, TimingValuesAreNormalNotExact) {
  auto values = normal_values(10000, 7);
  double sum = 0, squares = 0;
  int exact = 0;
  for (float v : values) {
    sum += v;
    squares += double(v) * v;
    exact += v * 8 == std::round(v * 8);
  }
  EXPECT_NEAR(sum / values.size(), 0.0, 0.05);
  EXPECT_NEAR(squares / values.size(), 1.0, 0.05);
  EXPECT_LT(exact, 10);
  EXPECT_EQ(normal_values(10, 7), normal_values(10, 7));
}

TEST(BenchData, KnownBitPatterns) {
  EXPECT_EQ(to_half_bits(1.0f), 0x3C00);
  EXPECT_EQ(to_half_bits(-0.125f), 0xB000);
  EXPECT_EQ(to_half_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(to_bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(to_bf16_bits(-2.0f), 0xC000);
  EXPECT_FLOAT_EQ(from_half_bits(0x3555), 0.333251953125f);
  EXPECT_EQ(to_half_bits(1.0f + 1.0f / 4096), 0x3C00);  // rounds to nearest even
}

TEST(BenchShapes, ResNet50Layers) {
  auto shapes = bench_shapes(ShapeSet::ResNet50, 128);
  ASSERT_EQ(shapes.size(), 15u);
  EXPECT_EQ(shapes[0].p(), 112);  // conv1 7x7/2 on 224
  EXPECT_EQ(shapes[0].pad, 3);
  EXPECT_EQ(shapes.back().n, 64);  // the large 3x3 keeps N64
  const ConvShape& res3 = shapes[5];
  EXPECT_EQ(res3.name, "res3 3x3 128->128 @28");
  EXPECT_DOUBLE_EQ(res3.flops(), 2.0 * 128 * 128 * 28 * 28 * 128 * 9);
  EXPECT_EQ(bench_shapes(ShapeSet::Quick, 16).size(), 3u);
  EXPECT_DOUBLE_EQ(tolerance_of(DataType::Bf16), 1e-2);
}

TEST(BenchTiming, SpreadIsMinMedianMax) {
  Spread odd = spread_of({3, 1, 2});
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.median, 2);
  EXPECT_EQ(odd.max, 3);
  EXPECT_EQ(spread_of({4, 1, 2, 3}).median, 2.5);
  EXPECT_EQ(spread_of({}).median, 0);
}

TEST(BenchTiming, EachMethodRunsTheCountsItSays) {
  auto libs = fake_gpu({});
  void* stream = nullptr;
  libs->cu.cuStreamCreate(&stream, 0);
  int runs = 0;
  Execute run = [&] {
    ++runs;
    return 0;
  };
  TimingCounts counts{3, 7, 5};
  Timing b2b = measure(libs->cu, stream, TimingMethod::BackToBack, counts, run);
  EXPECT_TRUE(b2b.measured);
  EXPECT_EQ(runs, 3 + 7 * 5);
  runs = 0;
  Timing single = measure(libs->cu, stream, TimingMethod::SingleCall, counts, run);
  EXPECT_EQ(runs, 3 + 5);
  EXPECT_EQ(single.counts.per_batch, 1);
  runs = 0;
  Timing graph = measure(libs->cu, stream, TimingMethod::CudaGraph, counts, run);
  EXPECT_TRUE(graph.measured);
  EXPECT_EQ(runs, 3 + 7);  // warm-up, then one capture: the replays call nothing on the host
  EXPECT_EQ(fake_gpu_log().captures, 1);
  EXPECT_EQ(fake_gpu_log().graph_launches, 1 + 5);  // one warm-up replay
}

TEST(BenchTiming, WarmsUpForTheGivenGpuTimeBeforeTiming) {
  FakeGpuSetup setup;
  setup.launch_ms = 0;
  auto libs = fake_gpu(setup);
  TimingCounts counts{0, 2, 3, 5.0};  // batches of 2 ms: three of them pass 5 ms
  Timing t = measure(libs->cu, nullptr, TimingMethod::BackToBack, counts, [] { return test::fake::advance(1.0); });
  EXPECT_TRUE(t.measured);
  EXPECT_EQ(fake_gpu_log().executions, 3 * 2 + 3 * 2);
  EXPECT_DOUBLE_EQ(t.ms.median, 1.0);
  EXPECT_EQ(bench_to_json(BenchReport{})["method"]["timing"]["warmup_ms"], 200);
}

TEST(BenchTiming, AFailingExecutionIsNotMeasured) {
  auto libs = fake_gpu({});
  int calls = 0;
  Timing t = measure(libs->cu, nullptr, TimingMethod::BackToBack, {1, 4, 4}, [&] { return ++calls == 3 ? 7 : 0; });
  EXPECT_FALSE(t.measured);
  EXPECT_NE(t.note.find("status 7"), std::string::npos) << t.note;
  EXPECT_LT(time_once(libs->cu, nullptr, [] { return 1; }), 0);
}

TEST(BenchTiming, FinalistsAreTimedInTurnForwardThenBackward) {
  FakeGpuSetup setup;
  setup.launch_ms = 0;
  auto libs = fake_gpu(setup);
  std::vector<Execute> runs;
  for (int64_t id : {1, 2, 3}) runs.push_back([id] { return test::fake::advance(id * 0.5, id); });
  auto timings = measure_in_turn(libs->cu, nullptr, {0, 2, 3, 0}, runs);
  ASSERT_EQ(timings.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(timings[i].graph.measured && timings[i].back_to_back.measured);
    EXPECT_DOUBLE_EQ(timings[i].graph.ms.median, (i + 1) * 0.5);
    EXPECT_DOUBLE_EQ(timings[i].back_to_back.ms.median, (i + 1) * 0.5);
    EXPECT_EQ(timings[i].graph.counts.batches, 3);
  }
  // Two rounds (2 batches, then 1), each run in turn: 1, 2, 3, then 3, 2, 1.
  EXPECT_EQ(engine_turns(), (std::vector<int64_t>{1, 2, 3, 2, 1}));
  // Per run and round: the graph's warm-up replay and its batches, then the back-to-back batches.
  EXPECT_EQ(test::fake_gpu_log().engine_runs.size(), 3u * ((2 + 2 * 2 + 2 * 2) + (2 + 1 * 2 + 1 * 2)));
  EXPECT_EQ(test::fake_gpu_log().captures, 3 * 2);
}

TEST(BenchTiming, EachFinalistAndMethodWarmsUpOnItsOwn) {
  FakeGpuSetup setup;
  setup.launch_ms = 0;
  auto libs = fake_gpu(setup);
  std::vector<Execute> runs;
  for (int64_t id : {1, 2}) runs.push_back([id] { return test::fake::advance(1.0, id); });
  // Half of the 4 ms warm-up per round: one untimed batch of 2 ms before each phase's timed one.
  auto timings = measure_in_turn(libs->cu, nullptr, {0, 2, 2, 4.0}, runs);
  ASSERT_TRUE(timings[0].graph.measured && timings[1].back_to_back.measured);
  // Per run and round: graph (warm-up replay, warm-up batch, timed batch), back to back (warm-up
  // batch, timed batch), 2 executions each.
  EXPECT_EQ(test::fake_gpu_log().engine_runs.size(), 2u * 2 * (3 * 2 + 2 * 2));
}

// A second of a small layer's batches (20 executions of 0.01 ms) is 5000 batches, more than the
// warm-up's bound of a thousand; a failed execution ends it with its status.
TEST(BenchTiming, KeepBusyFillsItsTimeEvenWithASmallLayer) {
  FakeGpuSetup setup;
  setup.launch_ms = 0;
  auto libs = fake_gpu(setup);
  EXPECT_EQ(keep_busy(libs->cu, nullptr, 1000.0, 20, [] { return test::fake::advance(0.01, 1); }), 0);
  EXPECT_GE(test::fake_gpu_log().engine_runs.size(), 100000u);
  int calls = 0;
  EXPECT_EQ(keep_busy(libs->cu, nullptr, 1000.0, 20, [&] { return ++calls == 30 ? 7 : test::fake::advance(0.01, 1); }),
            7);
  EXPECT_EQ(calls, 30);
}

// The GPU boosts its clock after a pause until it has been busy for a while. Finalist 2 is 5 %
// slower but host-bound: its back-to-back calls (2 ms of host time each) keep the GPU cool, so a
// graph batch timed right after them would run mostly at the boost clock and look faster than 1. Each
// phase's own warm-up brings the GPU to its sustained clock first, and 1 wins, as it does in use.
TEST(BenchTiming, AFinalistThatLeavesTheGpuIdleIsNotTimedAtTheBoostClock) {
  FakeGpuSetup setup;
  setup.engines = {engine(1, 1.0), engine(2, 1.05)};
  setup.engines[1].host_ms = 2.0;
  setup.boost_factor = 0.8;
  setup.boost_settle_ms = 5;
  auto libs = fake_gpu(setup);
  std::vector<Execute> runs{[] { return test::fake::advance(1.0, 1); }, [] { return test::fake::advance(1.05, 2); }};
  auto timings = measure_in_turn(libs->cu, nullptr, {0, 8, 4, 40.0}, runs);
  const Timing& fast = faster_of(timings[0].graph, timings[0].back_to_back);
  const Timing& host_bound = faster_of(timings[1].graph, timings[1].back_to_back);
  ASSERT_TRUE(fast.measured && host_bound.measured);
  EXPECT_EQ(host_bound.method, TimingMethod::CudaGraph);
  EXPECT_NEAR(fast.ms.median, 1.0, 0.01);
  EXPECT_NEAR(host_bound.ms.max, 1.05, 0.01);  // every batch at the sustained clock
  EXPECT_LT(fast.ms.median, host_bound.ms.median);
}

TEST(BenchTiming, AFinalistThatCannotBeCapturedIsTimedBackToBackOneThatFailsIsNotTimed) {
  auto libs = fake_gpu({});
  int calls = 0, calls3 = 0;
  std::vector<Execute> runs{[] { return test::fake::advance(1.0, 1); },
                            [&] { return ++calls == 2 ? 7 : test::fake::advance(1.0, 2); },
                            [&] { return ++calls3 == 5 ? 9 : test::fake::advance(1.0, 3); }};
  auto timings = measure_in_turn(libs->cu, nullptr, {1, 2, 3, 0}, runs);
  // The third: graph warm-up 1, capture 2 and 3 (replays call nothing), back-to-back warm-up 4,
  // then its first back-to-back batch fails at 5.
  EXPECT_FALSE(timings[2].graph.measured || timings[2].back_to_back.measured);
  EXPECT_NE(timings[2].back_to_back.note.find("status 9"), std::string::npos) << timings[2].back_to_back.note;
  EXPECT_TRUE(timings[0].graph.measured && timings[0].back_to_back.measured);
  EXPECT_FALSE(timings[1].graph.measured);  // its capture failed
  EXPECT_NE(timings[1].graph.note.find("status 7"), std::string::npos) << timings[1].graph.note;
  EXPECT_TRUE(timings[1].back_to_back.measured);
}

// The numerical check leaves the GPU idle (here its input copies are pauses that cool it), so a
// finalist stage started right after it ran its first phases at the boost clock: a lone finalist
// (as the legacy tier's often is) looked faster there than timed alone after it, and the tier was
// chosen on that figure. settle_ms of load before the stage puts both at the sustained clock.
TEST(BenchSearch, TheFinalistStageStartsAtTheSustainedClock) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 1.0)};
  gpu.mode_a = {1};
  gpu.boost_factor = 0.8;
  gpu.boost_settle_ms = 20;
  gpu.copy_pause_ms = 40;
  BenchOptions o = fake_options();
  o.search = SearchDepth::Heuristics;
  o.settle_ms = 40;
  BenchResult r = only_result(gpu, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.search.finalists.size(), 1u);
  EXPECT_NEAR(r.search.finalists[0].kernel().ms.median, 1.0, 0.01);
  EXPECT_NEAR(r.kernel().ms.median, 1.0, 0.01);
}

// With cool_ms, the pick's reported timing follows an idle GPU and then settle_ms of load on the
// pick (as PyTorch's side with the same PYTORCH_COOL_MS): those executions come after the stage.
TEST(BenchSearch, ACoolBeforeThePicksTimingIsFollowedBySettleLoadOnThePick) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 1.0)};
  gpu.mode_a = {1};
  BenchOptions o = fake_options();
  o.search = SearchDepth::Heuristics;
  o.settle_ms = 20;
  ASSERT_TRUE(only_result(gpu, o).error.empty());
  int without = fake_gpu_log().executions;
  o.cool_ms = 1;
  auto report = run_fake(gpu, o);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_TRUE(report->results.front().error.empty()) << report->results.front().error;
  EXPECT_GE(fake_gpu_log().executions - without, 20);  // 20 ms of 1 ms executions
  EXPECT_EQ(bench_to_json(*report)["method"]["cool_ms"], 1.0);
}

TEST(BenchSearch, TheFinalistWithTheBestMedianInTurnWins) {
  FakeGpuSetup gpu;
  FakeEngine flattered = engine(1, 1.0);  // fastest in the search, slower from its 13th execution on
  flattered.late_after = 12;
  flattered.late_factor = 1.3;
  gpu.engines = {flattered, engine(2, 1.03), engine(3, 1.02, FakeOutput::Wrong), engine(4, 1.2)};
  gpu.mode_a = {1, 2, 3, 4};
  BenchOptions o = fake_options();
  o.search = SearchDepth::Heuristics;
  auto report = run_fake(gpu, o);
  ASSERT_TRUE(report);
  const BenchResult& r = report->results.front();
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.algorithm, "engine 2");
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.search.rejected, 1);  // engine 3; engine 4 is beyond the 5 % margin
  const auto& f = r.search.finalists;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].algorithm, "engine 1");
  EXPECT_EQ(f[1].algorithm, "engine 2");
  EXPECT_LT(f[0].search_ms, f[1].search_ms);
  EXPECT_GT(f[0].kernel().ms.median, f[1].kernel().ms.median);
  EXPECT_FALSE(f[0].picked);
  EXPECT_TRUE(f[1].picked);
  EXPECT_GT(r.search.final_seconds, 0);
  EXPECT_LE(r.search.final_seconds, r.search.seconds);
  // Engines 1 and 2 took turns: 1, 2 in the first round and 2, 1 in the second.
  auto turns = engine_turns();
  ASSERT_GE(turns.size(), 4u);
  EXPECT_EQ(std::vector<int64_t>(turns.end() - 4, turns.end() - 1), (std::vector<int64_t>{1, 2, 1}));
  auto j = bench_to_json(*report)["results"][0]["search"];
  ASSERT_EQ(j["finalists"].size(), 2u);
  EXPECT_EQ(j["finalists"][1]["algorithm"], "engine 2");
  EXPECT_TRUE(j["finalists"][1]["picked"].get<bool>());
  EXPECT_GT(j["finalists"][0]["median_ms"].get<double>(), j["finalists"][1]["median_ms"].get<double>());
  EXPECT_EQ(j["finalists"][0]["timings"]["cuda_graph"]["batches"], 5);
  EXPECT_TRUE(j.contains("final_seconds"));
}

// The short search can rank a candidate first that is slower under sustained load (on a GPU: one
// that draws more power and loses more clock); a wider margin lets the full timing see the other.
TEST(BenchSearch, AWiderFinalistMarginLetsTheFullTimingSeeTheRunnerUp) {
  FakeGpuSetup gpu;
  FakeEngine flattered = engine(1, 1.0);  // fastest for the search's executions, slower after them
  flattered.late_after = 12;
  flattered.late_factor = 1.3;
  gpu.engines = {flattered, engine(2, 1.07)};
  gpu.mode_a = {1, 2};
  BenchOptions o = fake_options();
  o.search = SearchDepth::Heuristics;
  BenchResult r = only_result(gpu, o);  // the default margin, 5 %: engine 2 is no finalist
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.search.finalists.size(), 1u);
  EXPECT_EQ(r.algorithm, "engine 1");
  EXPECT_NEAR(r.kernel().ms.median, 1.3, 0.01);
  o.finalist_margin = 0.10;
  r = only_result(gpu, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.search.finalists.size(), 2u);
  EXPECT_LT(r.search.finalists[0].search_ms, r.search.finalists[1].search_ms);
  EXPECT_EQ(r.algorithm, "engine 2");
  EXPECT_NEAR(r.kernel().ms.median, 1.07, 0.01);
}

TEST(BenchSearch, PicksTheFastestEngineThatPassesTheCheck) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 1.0), engine(2, 0.5, FakeOutput::Wrong),
                 engine(3, 0.8), engine(4, 0.4, FakeOutput::Right, false),
                 engine(5, 0.7), engine(6, 2.0),
                 engine(7, 0.9)};
  gpu.mode_a = {1, 2, 3, 4};
  gpu.mode_instant = {1, 7};
  gpu.mode_b = {3, 5};
  gpu.fallback = {6, 1};
  BenchResult r = only_result(gpu, fake_options());
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.algorithm, "engine 5");  // 4 cannot be planned, 2 computes the wrong thing
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.max_error, 0);
  EXPECT_EQ(r.search.proposed, 7);  // 3 and 1 proposed twice count once
  EXPECT_EQ(r.search.failed, 1);
  EXPECT_EQ(r.search.rejected, 1);
  EXPECT_EQ(source_count(r.search, "heuristics mode A"), 4);
  EXPECT_EQ(source_count(r.search, "heuristics mode INSTANT"), 1);
  EXPECT_EQ(source_count(r.search, "heuristics mode B"), 1);
  EXPECT_EQ(source_count(r.search, "fallback list"), 1);
  EXPECT_GT(r.search.seconds, 0);
}

TEST(BenchSearch, KernelTimeIsTheFasterOfGraphAndBackToBack) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5)};
  gpu.mode_a = {1};
  gpu.launch_ms = 0.1;  // paid per call, once per graph replay
  BenchResult r = only_result(gpu, fake_options());
  ASSERT_TRUE(r.kernel_graph.measured && r.kernel_back_to_back.measured && r.single_call.measured);
  EXPECT_EQ(r.kernel().method, TimingMethod::CudaGraph);
  EXPECT_NEAR(r.kernel_graph.ms.median, 0.5 + 0.1 / 4, 1e-4);
  EXPECT_NEAR(r.kernel_back_to_back.ms.median, 0.6, 1e-4);
  EXPECT_NEAR(r.single_call.ms.median, 0.6, 1e-4);
  EXPECT_NEAR(r.tflops, tiny().flops() / (r.kernel_graph.ms.median * 1e-3) / 1e12, 1e-9);
}

TEST(BenchSearch, AnEngineThatCannotBeCapturedIsTimedBackToBack) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5, FakeOutput::Right, true, false)};
  gpu.mode_a = {1};
  BenchResult r = only_result(gpu, fake_options());
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.kernel_graph.measured);
  EXPECT_NE(r.kernel_graph.note.find("CUDA graph"), std::string::npos);
  EXPECT_EQ(r.kernel().method, TimingMethod::BackToBack);
  EXPECT_TRUE(r.correct);
}

TEST(BenchSearch, TheKnobSweepFindsAFasterConfig) {
  FakeGpuSetup gpu;
  FakeEngine tunable = engine(7, 1.0);
  tunable.knobs = {FakeKnob{}};  // tile_size 0..8, proposed at 2, fastest at 4 (1.4 ms -> 1.0 ms)
  gpu.engines = {tunable, engine(8, 1.2)};
  gpu.mode_a = {7, 8};
  BenchOptions o = fake_options();
  o.search = SearchDepth::Heuristics;
  EXPECT_EQ(only_result(gpu, o).algorithm, "engine 8");
  o.search = SearchDepth::Knobs;
  BenchResult r = only_result(gpu, o);
  EXPECT_EQ(r.algorithm, "engine 7 tile_size=4");
  EXPECT_EQ(source_count(r.search, "knob sweep"), 8);  // 3, 1, 4, 0, 5, 6, 7, 8: nearest first
  EXPECT_TRUE(r.correct);
}

TEST(BenchSearch, TheHeuristicsOwnConfigIsAFinalistWhenTheKnobSweepCrowdsItOut) {
  FakeGpuSetup gpu;
  FakeEngine tunable = engine(7, 1.0);
  FakeKnob flat;  // every tile_size within 5 % of the best: the sweep's neighbours fill the finalists
  flat.cost_per_step = 0.005;
  tunable.knobs = {flat};
  gpu.engines = {tunable};
  gpu.mode_a = {7};
  BenchOptions o = fake_options();
  o.finalists = 2;
  BenchResult r = only_result(gpu, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const auto& f = r.search.finalists;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].source, "knob sweep");
  EXPECT_EQ(f[1].source, "knob sweep");
  EXPECT_EQ(f[2].source, "heuristics mode A");
  EXPECT_EQ(f[2].algorithm, "engine 7 tile_size=2");
  EXPECT_EQ(r.algorithm, "engine 7 tile_size=4");
  EXPECT_EQ(bench_to_json({{}, 0, "", o, {r}})["results"][0]["search"]["finalists"][2]["source"], "heuristics mode A");
  // Beyond the margin (tile_size=2 is 1 % slower than the best), no source is added.
  o.finalist_margin = 0.007;
  r = only_result(gpu, o);
  ASSERT_EQ(r.search.finalists.size(), 2u);
  for (const auto& finalist : r.search.finalists) EXPECT_EQ(finalist.source, "knob sweep");
}

TEST(BenchSearch, Fp32KeepsOutTensorCoreAndNarrowingEngines) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(9, 0.3, FakeOutput::Right, true, true, {NOTE_TENSOR_CORE}),
                 engine(10, 0.2, FakeOutput::Right, true, true, {NOTE_DOWN_CONVERT_INPUTS}), engine(11, 1.0)};
  gpu.mode_a = {10, 9, 11};
  EXPECT_EQ(only_result(gpu, fake_options(DataType::Fp32)).algorithm, "engine 11");
  EXPECT_EQ(only_result(gpu, fake_options(DataType::Tf32)).algorithm, "engine 9");
  EXPECT_EQ(only_result(gpu, fake_options(DataType::Bf16)).algorithm, "engine 9");
}

TEST(BenchSearch, FarSlowerCandidatesAreAbandonedAfterOneExecution) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5), engine(2, 50.0)};
  gpu.mode_a = {1, 2};
  BenchResult r = only_result(gpu, fake_options());
  EXPECT_EQ(r.search.abandoned, 1);
  EXPECT_EQ(r.search.timed, 1);
}

TEST(BenchCheck, AnOutputNeverWrittenFailsTheCheck) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5, FakeOutput::Unwritten)};
  gpu.mode_a = {1};
  auto report = run_fake(gpu, fake_options());
  ASSERT_TRUE(report);
  const BenchResult& r = report->results.front();
  EXPECT_FALSE(r.correct);
  EXPECT_TRUE(std::isnan(r.max_error));  // the poison, not a stale result
  EXPECT_FALSE(report->all_correct());
  EXPECT_EQ(bench_exit_code(*report), ExitCode::VerifyFailed);
  EXPECT_NE(render_bench_text(*report).find("WRONG"), std::string::npos);
}

TEST(BenchCheck, TimedRunsReadNormalDataAndTheCheckReadsExactData) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5)};
  gpu.mode_a = {1};
  only_result(gpu, fake_options());
  EXPECT_EQ(fake_gpu_log().executions_on_exact, 1);  // the one checked finalist
  EXPECT_GT(fake_gpu_log().executions, 50);
  EXPECT_EQ(fake_gpu_log().live_allocations, 0u);
  BenchOptions exact = fake_options();
  exact.timing_data = TimingData::Exact;
  only_result(gpu, exact);
  EXPECT_EQ(fake_gpu_log().executions_on_exact, fake_gpu_log().executions);
}

TEST(BenchLegacy, FindsAlgorithmsAreSearchedTheSameWay) {
  FakeGpuSetup gpu;
  gpu.legacy = {{0, 2.0, DEFAULT_MATH}, {1, 1.0, TENSOR_OP_MATH}};
  BenchOptions o = fake_options();
  o.tiers = {Tier::Legacy};
  o.layouts = {Layout::Nchw};
  BenchResult r = only_result(gpu, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.algorithm, "algo 1 (tensor op)");
  EXPECT_EQ(source_count(r.search, "cudnnFind"), 2);
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.kernel().method, TimingMethod::CudaGraph);
}

TEST(BenchReportJson, RecordsTheMethodTheCountsAndTheSpread) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5)};
  gpu.mode_a = {1};
  auto report = run_fake(gpu, fake_options());
  ASSERT_TRUE(report);
  auto j = bench_to_json(*report);
  EXPECT_EQ(j["method"]["timing"]["batches"], 5);
  EXPECT_EQ(j["method"]["timing"]["executions_per_batch"], 4);
  EXPECT_EQ(j["method"]["timing_data"], "normal");
  EXPECT_EQ(j["method"]["search"], "knobs");
  const auto& r = j["results"][0];
  EXPECT_EQ(r["kernel_method"], "cuda_graph");
  for (const char* method : {"cuda_graph", "back_to_back", "single_call"}) {
    const auto& ms = r["timings"][method]["ms_per_execution"];
    EXPECT_LE(ms["min"].get<double>(), ms["median"].get<double>()) << method;
    EXPECT_LE(ms["median"].get<double>(), ms["max"].get<double>()) << method;
  }
  EXPECT_LE(r["tflops_min"].get<double>(), r["tflops"].get<double>());
  EXPECT_LE(r["tflops"].get<double>(), r["tflops_max"].get<double>());
  EXPECT_EQ(r["search"]["sources"]["heuristics mode A"], 1);
  EXPECT_TRUE(r["correct"].get<bool>());
}

TEST(Bench, NoEngineThatRunsIsAnErrorOfThatConfiguration) {
  FakeGpuSetup gpu;
  gpu.engines = {engine(1, 0.5, FakeOutput::Right, false)};
  gpu.mode_a = {1};
  BenchResult r = only_result(gpu, fake_options());
  EXPECT_NE(r.error.find("no candidate could run (1 proposed, 1 failed)"), std::string::npos) << r.error;
}

TEST(Bench, WithoutADriverItSaysSo) {
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW)) {
    dlclose(cuda);
    GTEST_SKIP() << "this machine has an NVIDIA driver";
  }
  BenchRequest request;
  request.library = "/nonexistent/libcudnn.so.9";
  auto report = bench(request, system_bench_services());
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("no NVIDIA driver"), std::string::npos);
}

TEST(Bench, AToolkitWithoutCudnnSaysSo) {
  test::TempDir dir;
  test::make_linux_toolkit(dir.path(), 13000);
  BenchRequest request;
  request.cuda_root = dir.path();
  auto report = bench(request, system_bench_services());
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("no cuDNN is installed"), std::string::npos) << report.error().message;
}

TEST(Bench, CliRejectsUnknownDataTypesAndSearchDepths) {
  std::string out;
  EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --dtypes fp8", &out), 1);
  EXPECT_NE(out.find("unknown data type 'fp8': use fp32, tf32, fp16, bf16"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --search deep", &out), 1);
  EXPECT_NE(out.find("unknown search depth 'deep': use heuristics, knobs"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --per-batch 0", &out), 1);
  EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --batch 1000000", &out), 1);
  EXPECT_NE(out.find("--batch is at most 4096"), std::string::npos) << out;
  for (const char* ms : {"-1", "60001"}) {
    EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --settle-ms " + ms, &out), 1);
    EXPECT_NE(out.find("--settle-ms is 0 to 60000"), std::string::npos) << out;
    EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --cool-ms " + ms, &out), 1);
    EXPECT_NE(out.find("--cool-ms is 0 to 60000"), std::string::npos) << out;
  }
  for (const char* bad : {"--finalists 0", "--finalists 17", "--finalist-margin -1", "--finalist-margin 101"}) {
    EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench " + bad, &out), 1) << bad;
    EXPECT_NE(out.find("--finalists is 1 to 16 and --finalist-margin 0 to 100 (percent)"), std::string::npos) << out;
  }
  EXPECT_EQ(
      test::run_command(std::string(CLI_PATH) + " bench --finalists 16 --finalist-margin 100 --list-shapes", &out), 0)
      << out;
}

}  // namespace cudnn_install::gpu
