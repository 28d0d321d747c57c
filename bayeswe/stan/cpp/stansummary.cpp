// SPDX-License-Identifier: BSD-3-Clause
//
// bin/stansummary: summary statistics of Stan CSV output files, in the
// layout of CmdStan 2.35's stansummary, which is what cmdstanpy parses.
// For sampler output the console table is CmdStan's to the character (same
// statistics, same column formats); the CSV file (--csv_filename) holds the
// same statistics printed with sig_figs significant digits.
//
//   stansummary [--percentiles=5,50,95] [--sig_figs=2] [--csv_filename=F]
//               file1.csv [file2.csv ...]
//
// All statistics come from stan::mcmc::chains: Mean, StdDev, the
// percentiles (order statistics, not interpolated), N_Eff (multi-chain
// ESS, not split) and R_hat (split R-hat).  MCSE is StdDev / sqrt(N_Eff),
// N_Eff/s divides by the summed sampling time of all chains.  Like
// CmdStan, a constant column keeps the rounding noise of chains::sd
// (e.g. 6.7e-16 for a column of ones) and has MCSE, N_Eff and R_hat nan.

#include "csv_tools.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace bayeswe {
namespace {

/** A bad command line: reported together with the usage text. */
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Options {
  std::vector<double> percents{5, 50, 95};
  int sig_figs = 2;  // CmdStan's default for the console table
  bool sig_figs_given = false;  // the CSV file defaults to 6 digits
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
    else if (name == "sig_figs") {
      options.sig_figs = parse_sig_figs(option_value(args, i));
      options.sig_figs_given = true;
    } else if (name == "csv_filename" || name == "csv_file")
      options.csv_filename = option_value(args, i);
    else
      throw UsageError("unknown option " + arg);
  }
  if (!options.help && options.files.empty())
    throw UsageError("no Stan CSV files given");
  return options;
}

/**
 * Width and number of decimals CmdStan's stansummary gives a value shown in
 * fixed notation with sig_figs significant digits: numbers of magnitude
 * >= 1 get sig_figs digits in all (at least their integer part), smaller
 * ones sig_figs digits after the leading zeros; zero gets sig_figs
 * decimals; a sign adds one to the width.
 */
struct FixedLayout {
  int width;
  int precision;
};

FixedLayout fixed_layout(double value, int sig_figs) {
  FixedLayout layout{sig_figs, sig_figs};
  double magnitude = std::fabs(value);
  if (value == 0) {
    layout = {sig_figs, sig_figs};
  } else if (std::isnan(value) || std::isinf(value)) {
    layout = {3, sig_figs};  // "nan", "inf"
  } else if (magnitude >= 1) {
    int integer_digits
        = static_cast<int>(std::ceil(std::log10(magnitude) + 1e-6));
    if (integer_digits >= sig_figs)
      layout = {integer_digits, 0};
    else
      layout = {sig_figs + 1, sig_figs - integer_digits};
  } else {
    int zeros = static_cast<int>(std::fabs(std::floor(std::log10(magnitude))));
    layout = {1 + zeros + sig_figs, zeros + sig_figs - 1};
  }
  if (std::signbit(value))
    ++layout.width;
  return layout;
}

/**
 * How one column of one block of the console table is printed.  CmdStan
 * chooses per column and block (the sampler diagnostics form one block,
 * lp__ and the model's variables the other): fixed notation when every
 * value fits in 5 characters, otherwise scientific with sig_figs digits.
 */
struct ColumnFormat {
  bool scientific = false;
  size_t width = 0;  // including two spaces of padding
};

ColumnFormat column_format(const std::vector<const std::vector<double>*>& rows,
                           size_t column, const std::string& label,
                           int sig_figs) {
  const size_t padding = 2;
  size_t fixed_width = 0;
  bool negative = false;
  for (const std::vector<double>* row : rows) {
    double value = (*row)[column];
    fixed_width = std::max<size_t>(fixed_width,
                                   fixed_layout(value, sig_figs).width);
    negative = negative || value < 0;
  }
  ColumnFormat format;
  if (fixed_width + padding < 8) {
    format.width = std::max(fixed_width, label.size()) + padding;
    return format;
  }
  format.scientific = true;
  // d.ddde+XX, and a sign if any value is negative
  size_t scientific_width = sig_figs + 5 + (negative ? 1 : 0);
  format.width = std::max(scientific_width, label.size()) + padding;
  return format;
}

std::string format_cell(double value, bool scientific, int sig_figs) {
  if (std::isnan(value))
    return "nan";  // never "-nan"
  std::ostringstream out;
  if (scientific)
    out << std::scientific << std::setprecision(sig_figs - 1);
  else
    out << std::fixed
        << std::setprecision(fixed_layout(value, sig_figs).precision);
  out << value;
  return out.str();
}

/** Name of a variable without its indices: "a[1,2]" -> "a". */
std::string base_name(const std::string& name) {
  return name.substr(0, name.find('['));
}

/** The indices of "a[i,j,...]", or nothing if the name has none. */
std::vector<int> element_indices(const std::string& name) {
  size_t open = name.find('[');
  if (open == std::string::npos || name.back() != ']')
    return {};
  std::vector<int> indices;
  std::istringstream in(name.substr(open + 1, name.size() - open - 2));
  std::string token;
  while (std::getline(in, token, ',')) {
    char* end = nullptr;
    long index = std::strtol(token.c_str(), &end, 10);
    if (token.empty() || *end != '\0' || index < 1)
      return {};
    indices.push_back(static_cast<int>(index));
  }
  return indices;
}

/**
 * Order of the table's rows, CmdStan's: lp__ and the sampler diagnostics,
 * then the model's variables with every container in row-major order
 * (a[1,1], a[1,2], ..., a[2,1], ...), although Stan CSV files hold it in
 * column-major order (a[1,1], a[2,1], ...).
 */
std::vector<int> display_order(const std::vector<std::string>& names) {
  std::vector<int> file_order = summary_order(names);
  std::vector<int> order;
  for (size_t first = 0; first < file_order.size();) {
    const std::string& name = names[file_order[first]];
    size_t end = first + 1;
    if (!is_sampler_column(name) && name.find('[') != std::string::npos)
      while (end < file_order.size()
             && base_name(names[file_order[end]]) == base_name(name))
        ++end;
    std::vector<int> dims = element_indices(names[file_order[end - 1]]);
    size_t count = 1;
    for (int dim : dims)
      count *= dim;
    if (dims.size() < 2 || count != end - first) {
      order.insert(order.end(), file_order.begin() + first,
                   file_order.begin() + end);
      first = end;
      continue;
    }
    std::vector<int> index(dims.size(), 0);  // 0-based, last one fastest
    for (size_t k = 0; k < count; ++k) {
      size_t offset = 0, stride = 1;  // column-major position in the file
      for (size_t d = 0; d < dims.size(); ++d) {
        offset += index[d] * stride;
        stride *= dims[d];
      }
      order.push_back(file_order[first + offset]);
      for (size_t d = dims.size(); d-- > 0;) {
        if (++index[d] < dims[d])
          break;
        index[d] = 0;
      }
    }
    first = end;
  }
  return order;
}

/** The statistics table: one row per column of the CSV files. */
struct Table {
  std::vector<std::string> header;  // Mean, MCSE, ... (without "name")
  std::vector<std::string> names;   // row names, display order
  std::vector<std::vector<double>> rows;
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
  double sd = chains.sd(index);
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
  for (int index : display_order(chains.param_names())) {
    table.names.push_back(chains.param_name(index));
    table.rows.push_back(column_stats(chains, index, probs, sampling_time));
  }
  return table;
}

/** Per-chain counts as "a,b,c", as in CmdStan's header line. */
std::string join_ints(const std::vector<ChainCsv>& files,
                      Eigen::Index (*value)(const ChainCsv&)) {
  std::vector<std::string> parts;
  for (const ChainCsv& file : files)
    parts.push_back(std::to_string(value(file)));
  return join(parts, ",");
}

std::string run_description(const std::vector<ChainCsv>& files) {
  Eigen::Index kept = 0, saved = 0;
  for (const ChainCsv& file : files) {
    kept += file.draws.rows();
    saved += file.draws.rows() + warmup_rows(file);
  }
  std::string n_files = std::to_string(files.size());
  if (files.front().method != "sample")
    return "Method " + files.front().method + ": " + n_files + " file(s); "
           + std::to_string(kept) + " draws summarized.";
  // As CmdStan: draws summarized, saved warmup draws and thinning per chain.
  return n_files + " chains: each with iter=("
         + join_ints(files, [](const ChainCsv& f) { return f.draws.rows(); })
         + "); warmup=(" + join_ints(files, warmup_rows) + "); thin=("
         + join_ints(files,
                     [](const ChainCsv& f) {
                       return static_cast<Eigen::Index>(f.csv.metadata.thin);
                     })
         + "); " + std::to_string(saved) + " iterations saved.";
}

/** "Warmup took ..." / "Sampling took ..." as CmdStan words them. */
std::string timing_line(const std::string& phase,
                        const std::vector<double>& seconds) {
  auto fixed = [](double value) { return format_cell(value, false, 2); };
  double total = 0;
  for (double s : seconds)
    total += s;
  std::string unit = "seconds";
  if (total / 3600 > 1) {
    total /= 3600;
    unit = "hours";
  } else if (total / 60 > 1) {
    total /= 60;
    unit = "minutes";
  }
  if (seconds.size() == 1)
    return phase + " took " + fixed(total) + " " + unit;
  std::vector<std::string> parts;
  for (double s : seconds)
    parts.push_back(fixed(s));
  return phase + " took (" + join(parts, ", ") + ") seconds, " + fixed(total)
         + " " + unit + " total";
}

/** Text above the table; also written as '#' comments into the CSV file. */
std::vector<std::string> preamble(const std::vector<ChainCsv>& files) {
  std::vector<std::string> lines{
      "Inference for Stan model: " + files.front().csv.metadata.model,
      run_description(files)};
  if (files.front().method == "sample") {
    std::vector<double> warmup, sampling;
    for (const ChainCsv& file : files) {
      warmup.push_back(file.csv.timing.warmup);
      sampling.push_back(file.csv.timing.sampling);
    }
    lines.push_back("");
    lines.push_back(timing_line("Warmup", warmup));
    lines.push_back(timing_line("Sampling", sampling));
  }
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
  // CmdStan's line ends with a space
  lines.push_back("and R_hat is the potential scale reduction factor on split "
                  "chains (at ");
  lines.push_back("convergence, R_hat=1).");
  return lines;
}

/**
 * The console table, as CmdStan's stansummary prints it: lp__ and the
 * sampler diagnostics, a blank line, the model's variables.  Column formats
 * are chosen separately from the sampler diagnostics and from the model's
 * variables; lp__ is printed in the latter's; a column is as wide as the
 * wider of the two.
 */
void print_console(const Table& table, const std::vector<ChainCsv>& files,
                   int sig_figs, std::ostream& out) {
  std::vector<const std::vector<double>*> sampler_rows, model_rows;
  std::vector<size_t> sampler_order, model_order;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const std::string& name = table.names[i];
    bool sampler = is_sampler_column(name);
    // lp__ is printed in the model's formats but does not choose them
    if (!sampler)
      model_rows.push_back(&table.rows[i]);
    else if (name != "lp__")
      sampler_rows.push_back(&table.rows[i]);
    (sampler ? sampler_order : model_order).push_back(i);
  }
  std::vector<ColumnFormat> sampler_formats, model_formats;
  std::vector<size_t> widths;
  for (size_t j = 0; j < table.header.size(); ++j) {
    sampler_formats.push_back(
        column_format(sampler_rows, j, table.header[j], sig_figs));
    model_formats.push_back(
        column_format(model_rows, j, table.header[j], sig_figs));
    widths.push_back(
        std::max(sampler_formats.back().width, model_formats.back().width));
  }
  size_t name_width = 0;
  for (const std::string& name : table.names)
    name_width = std::max(name_width, name.size());

  auto print_row = [&](size_t i) {
    const std::string& name = table.names[i];
    const std::vector<ColumnFormat>& formats
        = is_sampler_column(name) && name != "lp__" ? sampler_formats
                                                     : model_formats;
    out << std::left << std::setw(name_width + 1) << name << std::right;
    for (size_t j = 0; j < table.rows[i].size(); ++j)
      out << std::setw(widths[j])
          << format_cell(table.rows[i][j], formats[j].scientific, sig_figs);
    out << "\n";
  };

  for (const std::string& line : preamble(files))
    out << line << "\n";
  out << "\n" << std::setw(name_width + 1) << "";
  for (size_t j = 0; j < table.header.size(); ++j)
    out << std::setw(widths[j]) << table.header[j];
  out << "\n\n";
  for (size_t i : sampler_order)
    print_row(i);
  out << "\n";
  for (size_t i : model_order)
    print_row(i);
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
  for (size_t i = 0; i < table.rows.size(); ++i) {
    std::vector<std::string> cells;
    for (double value : table.rows[i])
      cells.push_back(format_number(value, sig_figs));
    out << "\"" << table.names[i] << "\"," << join(cells, ",") << "\n";
  }
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
    // like CmdStan: the CSV file has 6 significant digits unless told
    write_csv(table, files, options.sig_figs_given ? options.sig_figs : 6,
              options.csv_filename);
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
