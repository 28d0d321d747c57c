// SPDX-License-Identifier: BSD-3-Clause
//
// Helpers shared by bin/stansummary and bin/diagnose: reading Stan CSV
// files into stan::mcmc::chains and formatting numbers.
//
// Parsing is left to Stan's own stan::io::stan_csv_reader and all
// statistics to stan::mcmc::chains.  The few things done here are the
// ones those classes get wrong or do not know about:
//   * the method (sample, variational, ...) is not in stan_csv_metadata;
//   * CmdStan >= 2.33 writes booleans as "true"/"false", which the 2.35
//     reader parses as false, so save_warmup would be lost;
//   * chains::add(stan_csv) drops num_warmup rows even for thinned runs,
//     where only ceil(num_warmup / thin) warmup rows were written.

#ifndef BAYESWE_STAN_CPP_CSV_TOOLS_HPP
#define BAYESWE_STAN_CPP_CSV_TOOLS_HPP

#include <stan/io/stan_csv_reader.hpp>
#include <stan/mcmc/chains.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bayeswe {

/** One Stan CSV file, parsed, with the draws that should be summarised. */
struct ChainCsv {
  std::string path;
  stan::io::stan_csv csv;                     // everything Stan's reader saw
  std::map<std::string, std::string> config;  // "key = value" comment lines
  std::string method;                         // sample, variational, ...
  Eigen::MatrixXd draws;                      // kept draws (see kept_draws)
};

inline std::string trim(const std::string& s) {
  const char* space = " \t\r\n";
  size_t begin = s.find_first_not_of(space);
  if (begin == std::string::npos)
    return "";
  size_t end = s.find_last_not_of(space);
  return s.substr(begin, end - begin + 1);
}

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size()
         && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** Sampler diagnostics and lp__ all end in "__"; model variables never do. */
inline bool is_sampler_column(const std::string& name) {
  return ends_with(name, "__");
}

/**
 * Collect the "key = value" lines of the leading comment block.  The
 * first occurrence of a key wins: later ones ("file" under output, say)
 * belong to nested argument groups we do not need.
 */
inline std::map<std::string, std::string> scan_config(std::istream& in) {
  std::map<std::string, std::string> config;
  std::string line;
  while (in.peek() == '#' && std::getline(in, line)) {
    size_t equal = line.find('=');
    if (equal == std::string::npos)
      continue;
    std::string key = trim(line.substr(1, equal - 1));
    std::string value = trim(line.substr(equal + 1));
    const std::string deflt = "(Default)";
    if (ends_with(value, deflt))
      value = trim(value.substr(0, value.size() - deflt.size()));
    config.emplace(key, value);
  }
  return config;
}

inline std::string config_value(const ChainCsv& chain, const std::string& key,
                                const std::string& fallback = "") {
  auto it = chain.config.find(key);
  return it == chain.config.end() ? fallback : it->second;
}

/** CmdStan wrote booleans as 0/1 before 2.33 and as false/true since. */
inline bool parse_bool(const std::string& value) {
  return value == "1" || value == "true";
}

/** Rows at the top of the draws block that are saved warmup iterations. */
inline Eigen::Index warmup_rows(const ChainCsv& chain) {
  if (chain.method != "sample"
      || !parse_bool(config_value(chain, "save_warmup", "0")))
    return 0;
  // Stan writes iteration m when m % thin == 0, i.e. ceil(num_warmup / thin)
  Eigen::Index thin = std::max<Eigen::Index>(1, chain.csv.metadata.thin);
  Eigen::Index warmup = chain.csv.metadata.num_warmup;
  return std::min<Eigen::Index>((warmup + thin - 1) / thin,
                                chain.csv.samples.rows());
}

/**
 * The rows that describe the posterior (or its approximation):
 *  - sample: drop saved warmup iterations;
 *  - variational: drop row 1, which holds the mean of the approximation
 *    rather than a draw from it (CmdStan's stansummary skips it too);
 *  - optimize: keep the last row only; with save_iterations the earlier
 *    rows are the optimizer's path, not draws, so the "summary" is just
 *    the estimate (its spread statistics come out as nan);
 *  - laplace, pathfinder, generate_quantities, ...: every row is a draw.
 */
inline Eigen::MatrixXd kept_draws(const ChainCsv& chain) {
  const Eigen::MatrixXd& all = chain.csv.samples;
  Eigen::Index rows = all.rows();
  Eigen::Index skip = 0;
  if (chain.method == "variational")
    skip = std::min<Eigen::Index>(1, rows);
  else if (chain.method == "optimize")
    skip = std::max<Eigen::Index>(0, rows - 1);
  else
    skip = warmup_rows(chain);
  return all.bottomRows(rows - skip);
}

/**
 * Stan's reader reports problems on a stream, mixing harmless warnings
 * (e.g. no adaptation block in optimizer output) with real errors.  Keep
 * only the error lines so messages to the user stay relevant.
 */
inline std::string error_lines(const std::string& messages) {
  std::istringstream in(messages);
  std::string line, errors;
  while (std::getline(in, line))
    if (line.rfind("Error", 0) == 0)
      errors += " " + line;
  return errors;
}

inline std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("Cannot open file: " + path);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

/** Read and parse one Stan CSV file; throws std::runtime_error on failure. */
inline ChainCsv read_chain_csv(const std::string& path) {
  ChainCsv chain;
  chain.path = path;
  std::string text = read_whole_file(path);

  std::istringstream config_in(text);
  chain.config = scan_config(config_in);
  chain.method = config_value(chain, "method", "sample");

  std::istringstream csv_in(text);
  std::stringstream messages;
  try {
    chain.csv = stan::io::stan_csv_reader::parse(csv_in, &messages);
  } catch (const std::exception& e) {
    throw std::runtime_error("Cannot parse Stan CSV file " + path + ": "
                             + e.what() + error_lines(messages.str()));
  }
  // the reader sizes rows by the first draw, not by the header
  if (chain.csv.samples.rows() > 0
      && chain.csv.samples.cols()
             != static_cast<Eigen::Index>(chain.csv.header.size()))
    throw std::runtime_error("Stan CSV file " + path + " has "
                             + std::to_string(chain.csv.header.size())
                             + " column names but "
                             + std::to_string(chain.csv.samples.cols())
                             + " values in its draws");
  chain.draws = kept_draws(chain);
  if (chain.draws.rows() == 0)
    throw std::runtime_error("No draws found in Stan CSV file: " + path
                             + error_lines(messages.str()));
  return chain;
}

inline std::vector<ChainCsv> read_chain_csvs(
    const std::vector<std::string>& paths) {
  std::vector<ChainCsv> chains;
  for (const std::string& path : paths)
    chains.push_back(read_chain_csv(path));
  return chains;
}

/**
 * Put the kept draws of every file into one chains object, one chain per
 * file.  Warmup was already removed, so chains' own warmup count stays 0.
 */
inline stan::mcmc::chains<> make_chains(const std::vector<ChainCsv>& files) {
  if (files.empty())
    throw std::runtime_error("No Stan CSV files given");
  const std::vector<std::string>& header = files.front().csv.header;
  stan::mcmc::chains<> chains(header);
  for (const ChainCsv& file : files) {
    if (file.csv.header != header)
      throw std::runtime_error("Columns of " + file.path
                               + " do not match those of "
                               + files.front().path);
    chains.add(file.draws);
  }
  return chains;
}

/** Column indices with lp__ and sampler diagnostics first, then the rest. */
inline std::vector<int> summary_order(const std::vector<std::string>& names) {
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(names.size()); ++i)
    if (is_sampler_column(names[i]))
      order.push_back(i);
  for (int i = 0; i < static_cast<int>(names.size()); ++i)
    if (!is_sampler_column(names[i]))
      order.push_back(i);
  return order;
}

/**
 * Format like an ostream with precision sig_figs (printf "%g"), which is
 * what readers of CmdStan's output expect, but spell every NaN "nan":
 * printf may write "-nan", which pandas does not read as missing.
 */
inline std::string format_number(double value, int sig_figs) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", sig_figs, value);
  return buffer;
}

inline std::string join(const std::vector<std::string>& parts,
                        const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? separator : "") + parts[i];
  return out;
}

inline int column_index(const std::vector<std::string>& names,
                        const std::string& name) {
  for (int i = 0; i < static_cast<int>(names.size()); ++i)
    if (names[i] == name)
      return i;
  return -1;
}

}  // namespace bayeswe

#endif
