// SPDX-License-Identifier: BSD-3-Clause
//
// bin/stansummary: summary statistics of Stan CSV output files, in the
// layout of CmdStan 2.35's stansummary, which is what cmdstanpy parses.
//
//   stansummary [--percentiles=5,50,95] [--sig_figs=2] [--csv_filename=F]
//               file1.csv [file2.csv ...]
//
// All statistics come from stan::mcmc::chains: Mean, StdDev, the
// percentiles (order statistics, not interpolated), N_Eff (multi-chain
// ESS, not split) and R_hat (split R-hat).  MCSE is StdDev / sqrt(N_Eff),
// N_Eff/s divides by the summed sampling time of all chains.

#include "csv_tools.hpp"

#include <cstdlib>
#include <iomanip>
#include <iostream>

namespace bayeswe {
namespace {

/** A bad command line: reported together with the usage text. */
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Options {
  std::vector<double> percents{5, 50, 95};
  int sig_figs = 2;  // CmdStan's default for the console table
  std::string csv_filename;
  std::vector<std::string> files;
  bool help = false;
};

const char* const kUsage
    = "Usage: stansummary [options] file1.csv [file2.csv ...]\n"
      "Options:\n"
      "  -p, --percentiles=P1,P2,...  percentiles to report, increasing,\n"
      "                               each in (0, 100) (default 5,50,95)\n"
      "  -s, --sig_figs=N             significant figures, 1..18 (default 2)\n"
      "  -c, --csv_filename=FILE      also write the summary as CSV to FILE\n"
      "  -h, --help                   show this message\n";

std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> percents;
  std::istringstream in(text);
  std::string token;
  while (std::getline(in, token, ',')) {
    token = trim(token);
    char* end = nullptr;
    double value = std::strtod(token.c_str(), &end);
    bool ok = !token.empty() && *end == '\0' && value > 0 && value < 100
              && (percents.empty() || value > percents.back());
    if (!ok)
      throw UsageError(
          "--percentiles: values must be in (0, 100) and strictly "
          "increasing, found '"
          + text + "'");
    percents.push_back(value);
  }
  if (percents.empty())
    throw UsageError("--percentiles: no values given");
  return percents;
}

int parse_sig_figs(const std::string& text) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 18)
    throw UsageError("--sig_figs: expected an integer in 1..18, found '"
                     + text + "'");
  return static_cast<int>(value);
}

/** Long option name for "--name" / "--name=..." / "-x" spellings, else "". */
std::string option_name(const std::string& arg) {
  static const std::map<std::string, std::string> short_names{
      {"-p", "percentiles"}, {"-s", "sig_figs"},
      {"-c", "csv_filename"}, {"-h", "help"}};
  std::string head = arg.substr(0, arg.find('='));
  if (head.rfind("--", 0) == 0)
    return head.substr(2);
  auto it = short_names.find(head);
  return it == short_names.end() ? "" : it->second;
}

/**
 * Value of an option: the text after '=', or the next argument when
 * there is none ("-p 5,95", "--percentiles= 5,95" split by a shell).
 * cmdstanpy passes "--percentiles= 5,50,95" as one argument; the space
 * is dropped when the list is parsed.
 */
std::string option_value(const std::vector<std::string>& args, size_t& i) {
  size_t equal = args[i].find('=');
  if (equal != std::string::npos && equal + 1 < args[i].size())
    return args[i].substr(equal + 1);
  if (i + 1 >= args.size())
    throw UsageError("option " + args[i] + " needs a value");
  return args[++i];
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.empty() || arg[0] != '-') {
      options.files.push_back(arg);
      continue;
    }
    std::string name = option_name(arg);
    if (name == "help")
      options.help = true;
    else if (name == "percentiles")
      options.percents = parse_percentiles(option_value(args, i));
    else if (name == "sig_figs")
      options.sig_figs = parse_sig_figs(option_value(args, i));
    else if (name == "csv_filename" || name == "csv_file")
      options.csv_filename = option_value(args, i);
    else
      throw UsageError("unknown option " + arg);
  }
  if (!options.help && options.files.empty())
    throw UsageError("no Stan CSV files given");
  return options;
}

/** The statistics table: one row per column of the CSV files. */
struct Table {
  std::vector<std::string> header;  // Mean, MCSE, ... (without "name")
  std::vector<std::string> names;   // row names, display order
  std::vector<std::vector<double>> rows;
  size_t num_sampler_rows = 0;  // leading rows that are lp__ and sampler
};

std::vector<std::string> table_header(const std::vector<double>& percents) {
  std::vector<std::string> header{"Mean", "MCSE", "StdDev"};
  for (double p : percents)
    header.push_back(format_number(p, 15) + "%");  // 5 -> "5%", 2.5 -> "2.5%"
  header.insert(header.end(), {"N_Eff", "N_Eff/s", "R_hat"});
  return header;
}

std::vector<double> column_stats(const stan::mcmc::chains<>& chains, int index,
                                 const Eigen::VectorXd& probs,
                                 double sampling_time) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Eigen::VectorXd draws = chains.samples(index);
  // chains::mean sums x/n, so a constant column gets a rounding-noise sd
  // (~1e-15); report what the data say instead
  bool constant = draws.size() > 1 && (draws.array() == draws(0)).all();
  double sd = constant ? 0.0 : chains.sd(index);
  double ess = chains.effective_sample_size(index);
  std::vector<double> row{chains.mean(index), sd / std::sqrt(ess), sd};
  Eigen::VectorXd quantiles = chains.quantiles(index, probs);
  row.insert(row.end(), quantiles.data(), quantiles.data() + quantiles.size());
  row.push_back(ess);
  // methods other than sampling record no time; a rate would be inf
  row.push_back(sampling_time > 0 ? ess / sampling_time : nan);
  row.push_back(chains.split_potential_scale_reduction(index));
  return row;
}

Table summarize(const std::vector<ChainCsv>& files, const Options& options) {
  stan::mcmc::chains<> chains = make_chains(files);
  Eigen::VectorXd probs(options.percents.size());
  for (size_t i = 0; i < options.percents.size(); ++i)
    probs(i) = options.percents[i] / 100.0;
  double sampling_time = 0;
  for (const ChainCsv& file : files)
    sampling_time += file.csv.timing.sampling;

  Table table;
  table.header = table_header(options.percents);
  for (int index : summary_order(chains.param_names())) {
    table.names.push_back(chains.param_name(index));
    table.rows.push_back(column_stats(chains, index, probs, sampling_time));
    if (is_sampler_column(table.names.back()))
      ++table.num_sampler_rows;
  }
  return table;
}

/** Per-chain values as "(a, b, c)", as in CmdStan's header lines. */
template <typename F>
std::string per_chain(const std::vector<ChainCsv>& files, F value) {
  std::vector<std::string> parts;
  for (const ChainCsv& file : files)
    parts.push_back(value(file));
  return "(" + join(parts, ", ") + ")";
}

std::string run_description(const std::vector<ChainCsv>& files) {
  size_t kept = 0;
  for (const ChainCsv& file : files)
    kept += file.draws.rows();
  std::string n_files = std::to_string(files.size());
  if (files.front().method != "sample")
    return "Method " + files.front().method + ": " + n_files + " file(s); "
           + std::to_string(kept) + " draws summarized.";
  auto iter = [](const ChainCsv& f) {
    return std::to_string(f.csv.metadata.num_samples);
  };
  auto warmup = [](const ChainCsv& f) {
    return std::to_string(f.csv.metadata.num_warmup);
  };
  auto thin = [](const ChainCsv& f) {
    return std::to_string(f.csv.metadata.thin);
  };
  return n_files + " chains: each with iter=" + per_chain(files, iter)
         + "; warmup=" + per_chain(files, warmup)
         + "; thin=" + per_chain(files, thin) + "; " + std::to_string(kept)
         + " iterations saved.";
}

/** "Warmup took ..." / "Sampling took ..."; none if no time was recorded. */
std::vector<std::string> timing_lines(const std::vector<ChainCsv>& files) {
  double warmup = 0, sampling = 0;
  for (const ChainCsv& file : files) {
    warmup += file.csv.timing.warmup;
    sampling += file.csv.timing.sampling;
  }
  if (warmup <= 0 && sampling <= 0)
    return {};
  auto seconds = [](double s) { return format_number(s, 2); };
  auto warmup_of = [&](const ChainCsv& f) {
    return seconds(f.csv.timing.warmup);
  };
  auto sampling_of = [&](const ChainCsv& f) {
    return seconds(f.csv.timing.sampling);
  };
  return {"",
          "Warmup took " + per_chain(files, warmup_of) + " seconds, "
              + seconds(warmup) + " seconds total",
          "Sampling took " + per_chain(files, sampling_of) + " seconds, "
              + seconds(sampling) + " seconds total"};
}

/** Text above the table; also written as '#' comments into the CSV file. */
std::vector<std::string> preamble(const std::vector<ChainCsv>& files) {
  std::vector<std::string> lines{
      "Inference for Stan model: " + files.front().csv.metadata.model,
      run_description(files)};
  for (const std::string& line : timing_lines(files))
    lines.push_back(line);
  return lines;
}

std::vector<std::string> postscript(const std::vector<ChainCsv>& files) {
  const ChainCsv& first = files.front();
  std::vector<std::string> lines;
  if (first.method == "sample") {
    std::string algorithm = first.csv.metadata.algorithm;
    if (algorithm.empty())
      algorithm = "an unrecorded algorithm";  // no config comments in file
    else if (!first.csv.metadata.engine.empty())
      algorithm += " with " + first.csv.metadata.engine;
    lines.push_back("Samples were drawn using " + algorithm + ".");
  } else {
    lines.push_back("Draws were produced by method " + first.method + ".");
    if (first.method == "variational")
      lines.push_back("The first row of each file (the mean of the "
                      "approximation) was not included.");
    if (first.method == "optimize")
      lines.push_back("Only the last row of each file (the estimate) was "
                      "included.");
  }
  lines.push_back("For each parameter, N_Eff is a crude measure of effective "
                  "sample size,");
  lines.push_back("and R_hat is the potential scale reduction factor on split "
                  "chains (at");
  lines.push_back("convergence, R_hat=1).");
  return lines;
}

/** Cells as text, so column widths can be measured before printing. */
std::vector<std::vector<std::string>> format_cells(const Table& table,
                                                   int sig_figs) {
  std::vector<std::vector<std::string>> cells;
  for (const std::vector<double>& row : table.rows) {
    cells.emplace_back();
    for (double value : row)
      cells.back().push_back(format_number(value, sig_figs));
  }
  return cells;
}

void print_console(const Table& table, const std::vector<ChainCsv>& files,
                   int sig_figs, std::ostream& out) {
  std::vector<std::vector<std::string>> cells = format_cells(table, sig_figs);
  size_t name_width = 4;
  for (const std::string& name : table.names)
    name_width = std::max(name_width, name.size());
  std::vector<size_t> widths;
  for (size_t j = 0; j < table.header.size(); ++j) {
    size_t width = table.header[j].size();
    for (const auto& row : cells)
      width = std::max(width, row[j].size());
    widths.push_back(width + 2);
  }

  for (const std::string& line : preamble(files))
    out << line << "\n";
  out << "\n" << std::setw(name_width + 1) << "";
  for (size_t j = 0; j < table.header.size(); ++j)
    out << std::setw(widths[j]) << table.header[j];
  out << "\n\n";
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i == table.num_sampler_rows && i > 0)
      out << "\n";  // separate sampler diagnostics from model variables
    out << std::left << std::setw(name_width + 1) << table.names[i]
        << std::right;
    for (size_t j = 0; j < cells[i].size(); ++j)
      out << std::setw(widths[j]) << cells[i][j];
    out << "\n";
  }
  out << "\n";
  for (const std::string& line : postscript(files))
    out << line << "\n";
}

/** CSV layout read by cmdstanpy; names are quoted as they contain commas. */
void write_csv(const Table& table, const std::vector<ChainCsv>& files,
               int sig_figs, const std::string& path) {
  std::ofstream out(path);
  if (!out)
    throw std::runtime_error("Cannot write file: " + path);
  out << "name," << join(table.header, ",") << "\n";
  std::vector<std::vector<std::string>> cells = format_cells(table, sig_figs);
  for (size_t i = 0; i < cells.size(); ++i)
    out << "\"" << table.names[i] << "\"," << join(cells[i], ",") << "\n";
  for (const std::string& line : preamble(files))
    out << "# " << line << "\n";
  for (const std::string& line : postscript(files))
    out << "# " << line << "\n";
  if (!out.flush())
    throw std::runtime_error("Error writing file: " + path);
}

int run(const std::vector<std::string>& args) {
  Options options = parse_options(args);
  if (options.help) {
    std::cout << kUsage;
    return 0;
  }
  std::vector<ChainCsv> files = read_chain_csvs(options.files);
  Table table = summarize(files, options);
  print_console(table, files, options.sig_figs, std::cout);
  if (!options.csv_filename.empty())
    write_csv(table, files, options.sig_figs, options.csv_filename);
  return 0;
}

}  // namespace
}  // namespace bayeswe

int main(int argc, char* argv[]) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return bayeswe::run(args);
  } catch (const bayeswe::UsageError& e) {
    std::cerr << "stansummary: " << e.what() << "\n" << bayeswe::kUsage;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "stansummary: " << e.what() << "\n";
    return 1;
  }
}
