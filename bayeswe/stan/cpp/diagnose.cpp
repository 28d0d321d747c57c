// SPDX-License-Identifier: BSD-3-Clause
//
// bin/diagnose: checks Stan CSV output files for the usual signs of
// trouble and prints a report in the spirit of CmdStan 2.35's diagnose:
//   - transitions that hit the NUTS maximum tree depth,
//   - divergent transitions,
//   - E-BFMI below 0.3 in any chain,
//   - fewer than 0.001 effective draws per transition,
//   - split R-hat above 1.05.
//
//   diagnose file1.csv [file2.csv ...]
//
// The exit status is 0 whenever the files could be read, problems or
// not: the report on stdout is the result (cmdstanpy returns it as text).
// The sampler checks are skipped when the files lack the corresponding
// columns (output of fixed_param, optimize, variational, ...).

#include "csv_tools.hpp"

#include <iostream>
#include <set>

namespace bayeswe {
namespace {

constexpr double kEbfmiThreshold = 0.3;
constexpr double kEssPerDrawThreshold = 0.001;
constexpr double kRhatThreshold = 1.05;

/** Collects the report text and whether anything was flagged. */
struct Report {
  std::ostringstream text;
  bool problems = false;
};

std::string percent(double part, double whole) {
  return format_number(100.0 * part / whole, 4) + "%";
}

/** Count of draws in one chain with column value >= threshold. */
long count_at_least(const stan::mcmc::chains<>& chains, int chain, int column,
                    double threshold) {
  Eigen::VectorXd x = chains.samples(chain, column);
  return (x.array() >= threshold).count();
}

void check_treedepth(const stan::mcmc::chains<>& chains,
                     const std::vector<ChainCsv>& files, Report& report) {
  int column = column_index(chains.param_names(), "treedepth__");
  if (column < 0)
    return;
  long hits = 0;
  std::set<int> depths;  // each chain is held to its own configured limit
  for (int c = 0; c < chains.num_chains(); ++c) {
    int max_depth = files[c].csv.metadata.max_depth;
    hits += count_at_least(chains, c, column, max_depth);
    depths.insert(max_depth);
  }
  report.text << "Checking sampler transitions treedepth.\n";
  if (hits == 0) {
    report.text << "Treedepth satisfactory for all transitions.\n\n";
    return;
  }
  report.problems = true;
  long total = chains.num_samples();
  std::vector<std::string> limits;
  for (int depth : depths)
    limits.push_back(std::to_string(depth));
  std::string limit = join(limits, ", ");
  report.text << hits << " of " << total << " (" << percent(hits, total)
              << ") transitions hit the maximum treedepth limit of " << limit
              << ", or 2^" << limit << " leapfrog steps.\n"
              << "Trajectories that are prematurely terminated due to this "
                 "limit will result in slow exploration.\n"
              << "For optimal performance, increase this limit.\n\n";
}

void check_divergences(const stan::mcmc::chains<>& chains, Report& report) {
  int column = column_index(chains.param_names(), "divergent__");
  if (column < 0)
    return;
  long divergent = 0;
  for (int c = 0; c < chains.num_chains(); ++c)
    divergent += count_at_least(chains, c, column, 0.5);  // stored as 0 / 1
  report.text << "Checking sampler transitions for divergences.\n";
  if (divergent == 0) {
    report.text << "No divergent transitions found.\n\n";
    return;
  }
  report.problems = true;
  long total = chains.num_samples();
  report.text << divergent << " of " << total << " ("
              << percent(divergent, total)
              << ") transitions ended with a divergence.\n"
              << "These divergent transitions indicate that HMC is not fully "
                 "able to explore the posterior distribution.\n"
              << "Try increasing adapt delta closer to 1.\n"
              << "If this doesn't remove all divergences, try to "
                 "reparameterize the model.\n\n";
}

/**
 * Energy Bayesian fraction of missing information of one chain: the mean
 * squared change of energy between transitions over the energy variance
 * (Betancourt 2016).  Both use the same 1/(N-1), which cancels.  NaN if
 * it cannot be computed (fewer than 2 draws or constant energy).
 */
double ebfmi(const Eigen::VectorXd& energy) {
  if (energy.size() < 2)
    return std::numeric_limits<double>::quiet_NaN();
  Eigen::Index n = energy.size();
  double jumps = (energy.tail(n - 1) - energy.head(n - 1)).squaredNorm();
  double spread = (energy.array() - energy.mean()).square().sum();
  return spread > 0 ? jumps / spread
                    : std::numeric_limits<double>::quiet_NaN();
}

void check_ebfmi(const stan::mcmc::chains<>& chains, Report& report) {
  int column = column_index(chains.param_names(), "energy__");
  if (column < 0)
    return;
  report.text << "Checking E-BFMI - sampler transitions HMC potential "
                 "energy.\n";
  bool low = false;
  for (int c = 0; c < chains.num_chains(); ++c) {
    double value = ebfmi(chains.samples(c, column));
    if (!(value < kEbfmiThreshold))
      continue;  // also skips NaN: no evidence either way
    low = true;
    report.text << "The E-BFMI, " << format_number(value, 2) << ", of chain "
                << c + 1 << " is below the nominal threshold of "
                << kEbfmiThreshold
                << " which suggests that HMC may have trouble exploring the "
                   "target distribution.\n";
  }
  if (low) {
    report.problems = true;
    report.text << "If possible, try to reparameterize the model.\n\n";
  } else {
    report.text << "E-BFMI satisfactory.\n\n";
  }
}

/** Model variables (not lp__ or sampler columns) failing ESS / R-hat. */
struct MixingProblems {
  std::vector<std::string> low_ess;
  std::vector<std::string> high_rhat;
};

MixingProblems find_mixing_problems(const stan::mcmc::chains<>& chains) {
  MixingProblems found;
  double draws = chains.num_kept_samples();
  for (int i = 0; i < chains.num_params(); ++i) {
    const std::string& name = chains.param_name(i);
    if (is_sampler_column(name))
      continue;
    // NaN (constant or non-finite column) is not flagged, as in CmdStan
    if (chains.effective_sample_size(i) / draws < kEssPerDrawThreshold)
      found.low_ess.push_back(name);
    if (chains.split_potential_scale_reduction(i) > kRhatThreshold)
      found.high_rhat.push_back(name);
  }
  return found;
}

void report_mixing(const stan::mcmc::chains<>& chains, Report& report) {
  MixingProblems found = find_mixing_problems(chains);
  if (found.low_ess.empty()) {
    report.text << "Effective sample size satisfactory.\n\n";
  } else {
    report.problems = true;
    report.text << "The following parameters had fewer than "
                << kEssPerDrawThreshold
                << " effective draws per transition:\n  "
                << join(found.low_ess, ", ") << "\n"
                << "Such low values indicate that the effective sample size "
                   "estimators may be biased high and actual performance "
                   "may be substantially lower than quoted.\n\n";
  }
  if (found.high_rhat.empty()) {
    report.text << "Split R-hat values satisfactory all parameters.\n\n";
  } else {
    report.problems = true;
    report.text << "The following parameters had split R-hat greater than "
                << kRhatThreshold << ":\n  " << join(found.high_rhat, ", ")
                << "\n"
                << "Such high values indicate incomplete mixing and biased "
                   "estimation.\n"
                << "You should consider regularizating your model with "
                   "additional prior information or a more effective "
                   "parameterization.\n\n";
  }
}

int run(const std::vector<std::string>& paths) {
  if (paths.empty() || paths.front() == "-h" || paths.front() == "--help") {
    std::cout << "Usage: diagnose file1.csv [file2.csv ...]\n";
    return paths.empty() ? 1 : 0;
  }
  std::vector<ChainCsv> files = read_chain_csvs(paths);
  stan::mcmc::chains<> chains = make_chains(files);

  Report report;
  report.text << "Processing csv files: " << join(paths, ", ") << "\n\n";
  check_treedepth(chains, files, report);
  check_divergences(chains, report);
  check_ebfmi(chains, report);
  report_mixing(chains, report);
  report.text << (report.problems ? "Processing complete.\n"
                                  : "Processing complete, no problems "
                                    "detected.\n");
  std::cout << report.text.str();
  return 0;
}

}  // namespace
}  // namespace bayeswe

int main(int argc, char* argv[]) {
  try {
    return bayeswe::run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "diagnose: " << e.what() << "\n";
    return 1;
  }
}
