#pragma once

// Presenting a simulation: a table for the terminal, a JSON document with every number and
// the time series, and an SVG chart of requested vs used CPU and memory per policy.

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "sim/cluster_simulator.h"

namespace headroom::sim {

// The summary table's rows, the header first (formatting is the caller's).
std::vector<std::vector<std::string>> SummaryRows(const SimulationResult& result);

// The oracle's node count, and each policy's evictions and resizes per pod-day by cause.
std::string OracleAndRates(const SimulationResult& result);

// Lines comparing each policy's requests and nodes with the static policy's ("" when static
// did not run).
std::string SavingsAgainstStatic(const SimulationResult& result);

// Everything: the inputs that matter, per-policy summaries and time series.
nlohmann::ordered_json ResultJson(const SimulationResult& result,
                                  const nlohmann::ordered_json& inputs);

// A self-contained SVG: requested (solid) and used (dashed) CPU and memory over time.
std::string ResultSvg(const SimulationResult& result, const std::string& title);

}  // namespace headroom::sim
