// SPDX-License-Identifier: BSD-3-Clause
//
// The CmdStan 2.35 command-line grammar as a tree of arguments, and a parser
// for it. Written for bayeswe; the tree follows CmdStan's documented
// `help-all` output so that every command line cmdstanpy emits is accepted
// and the configuration block written to the CSV has CmdStan's layout.
//
// Grammar: a command line is a sequence of tokens `name=value` or `name`.
// A group (`adapt`, `data`, ...) is opened by its bare name and then greedily
// consumes tokens naming its children; a token it does not know closes it and
// is offered to the enclosing groups. A list argument (`method=sample`,
// `algorithm=hmc`) selects one of its choices, which then parses like a group.
// A bare choice name (`sample`, `log_prob`) is shorthand for `list=choice`.
#ifndef BAYESWE_ARGUMENTS_HPP
#define BAYESWE_ARGUMENTS_HPP

#include <cstdlib>
#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bayeswe {

struct usage_error : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class kind { group, list, integer, unsigned_integer, real, boolean, text };

struct arg {
  std::string name;
  kind type;
  std::string value;          // value as text (list: selected choice)
  std::string default_value;  // as printed in the configuration block
  std::string description;
  bool is_default = true;
  bool given = false;  // set on the command line
  bool print_choice = true;  // list: print the selected choice's own line
  std::vector<arg> children;  // group: sub-arguments; list: one group per choice
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  bool lower_open = false;

  arg* child(const std::string& n) {
    for (auto& c : children)
      if (c.name == n)
        return &c;
    return nullptr;
  }
  const arg* child(const std::string& n) const {
    return const_cast<arg*>(this)->child(n);
  }
  arg* selected() {  // list argument: the chosen group
    return child(value);
  }
  const arg* selected() const { return const_cast<arg*>(this)->selected(); }
};

inline arg group(const std::string& name, std::vector<arg> children,
                 const std::string& description = "") {
  arg a{name, kind::group, "", "", description};
  a.children = std::move(children);
  return a;
}

inline arg list(const std::string& name, const std::string& dflt,
                std::vector<arg> choices, const std::string& description = "") {
  arg a{name, kind::list, dflt, dflt, description};
  a.children = std::move(choices);
  return a;
}

inline arg value(const std::string& name, kind type, const std::string& dflt,
                 const std::string& description = "") {
  return arg{name, type, dflt, dflt, description};
}

inline arg bounded(arg a, double lower, double upper, bool lower_open = false) {
  a.lower = lower;
  a.upper = upper;
  a.lower_open = lower_open;
  return a;
}

inline arg positive(arg a) { return bounded(a, 0, std::numeric_limits<double>::infinity(), true); }
inline arg non_negative(arg a) { return bounded(a, 0, std::numeric_limits<double>::infinity()); }

inline std::vector<arg> lbfgs_settings(bool with_history) {
  std::vector<arg> v{
      positive(value("init_alpha", kind::real, "0.001", "Line search step size for first iteration")),
      non_negative(value("tol_obj", kind::real, "1e-12", "Convergence tolerance on changes in objective function value")),
      non_negative(value("tol_rel_obj", kind::real, "10000", "Convergence tolerance on relative changes in objective function value")),
      non_negative(value("tol_grad", kind::real, "1e-08", "Convergence tolerance on the norm of the gradient")),
      non_negative(value("tol_rel_grad", kind::real, "1e+07", "Convergence tolerance on the relative norm of the gradient")),
      non_negative(value("tol_param", kind::real, "1e-08", "Convergence tolerance on changes in parameter value")),
  };
  if (with_history)
    v.push_back(positive(value("history_size", kind::integer, "5", "Amount of history to keep for L-BFGS")));
  return v;
}

// The argument tree of CmdStan 2.35, top level in CmdStan's order.
inline std::vector<arg> cmdstan_arguments() {
  arg sample = group(
      "sample",
      {non_negative(value("num_samples", kind::integer, "1000", "Number of sampling iterations")),
       non_negative(value("num_warmup", kind::integer, "1000", "Number of warmup iterations")),
       value("save_warmup", kind::boolean, "false", "Stream warmup samples to output?"),
       positive(value("thin", kind::integer, "1", "Period between saved samples")),
       group("adapt",
             {value("engaged", kind::boolean, "true", "Adaptation engaged?"),
              positive(value("gamma", kind::real, "0.05", "Adaptation regularization scale")),
              bounded(value("delta", kind::real, "0.8", "Adaptation target acceptance statistic"), 0, 1, true),
              positive(value("kappa", kind::real, "0.75", "Adaptation relaxation exponent")),
              positive(value("t0", kind::real, "10", "Adaptation iteration offset")),
              value("init_buffer", kind::unsigned_integer, "75", "Width of initial fast adaptation interval"),
              value("term_buffer", kind::unsigned_integer, "50", "Width of final fast adaptation interval"),
              value("window", kind::unsigned_integer, "25", "Initial width of slow adaptation interval"),
              value("save_metric", kind::boolean, "false", "Save metric as JSON?")},
             "Warmup Adaptation"),
       list("algorithm", "hmc",
            {group("hmc",
                   {list("engine", "nuts",
                         {group("static", {positive(value("int_time", kind::real, "6.28319", "Total integration time"))}),
                          group("nuts", {positive(value("max_depth", kind::integer, "10", "Maximum tree depth"))})},
                         "Engine for Hamiltonian Monte Carlo"),
                    list("metric", "diag_e", {group("unit_e", {}), group("diag_e", {}), group("dense_e", {})},
                         "Geometry of base manifold"),
                    value("metric_file", kind::text, "", "Input file with precomputed Euclidean metric"),
                    positive(value("stepsize", kind::real, "1", "Step size for discrete evolution")),
                    bounded(value("stepsize_jitter", kind::real, "0", "Uniformly random jitter of the stepsize, in percent"), 0, 1)},
                   "Hamiltonian Monte Carlo"),
             group("fixed_param", {}, "Fixed Parameter Sampler")},
            "Sampling algorithm"),
       positive(value("num_chains", kind::integer, "1", "Number of chains"))},
      "Bayesian inference with Markov Chain Monte Carlo");
  sample.child("algorithm")->selected()->child("metric")->print_choice = false;

  arg optimize = group(
      "optimize",
      {list("algorithm", "lbfgs",
            {group("bfgs", lbfgs_settings(false)), group("lbfgs", lbfgs_settings(true)), group("newton", {})},
            "Optimization algorithm"),
       value("jacobian", kind::boolean, "false", "When true, include change-of-variables adjustment for constraining parameter transforms"),
       positive(value("iter", kind::integer, "2000", "Total number of iterations")),
       value("save_iterations", kind::boolean, "false", "Stream optimization progress to output?")},
      "Point estimation");

  arg variational = group(
      "variational",
      {list("algorithm", "meanfield", {group("meanfield", {}), group("fullrank", {})}, "Variational inference algorithm"),
       positive(value("iter", kind::integer, "10000", "Maximum number of ADVI iterations")),
       positive(value("grad_samples", kind::integer, "1", "Number of Monte Carlo draws for computing the gradient")),
       positive(value("elbo_samples", kind::integer, "100", "Number of Monte Carlo draws for estimate of ELBO")),
       positive(value("eta", kind::real, "1", "Stepsize scaling parameter")),
       group("adapt",
             {value("engaged", kind::boolean, "true", "Eta adaptation engaged?"),
              positive(value("iter", kind::integer, "50", "Number of iterations for eta adaptation"))},
             "Eta Adaptation for Variational Inference"),
       positive(value("tol_rel_obj", kind::real, "0.01", "Relative tolerance parameter for convergence")),
       positive(value("eval_elbo", kind::integer, "100", "Number of iterations between ELBO evaluations")),
       non_negative(value("output_samples", kind::integer, "1000", "Number of approximate posterior output draws to save"))},
      "Variational inference");

  arg diagnose = group(
      "diagnose",
      {list("test", "gradient",
            {group("gradient",
                   {positive(value("epsilon", kind::real, "1e-06", "Finite difference step size")),
                    positive(value("error", kind::real, "1e-06", "Error threshold"))})},
            "Diagnostic test")},
      "Model diagnostics");

  arg generate_quantities = group(
      "generate_quantities", {value("fitted_params", kind::text, "", "Input file of sample of fitted parameter values")},
      "Generate quantities of interest");

  std::vector<arg> pathfinder_settings = lbfgs_settings(true);
  for (arg a : {positive(value("num_psis_draws", kind::integer, "1000", "Number of draws from PSIS sample")),
                positive(value("num_paths", kind::integer, "4", "Number of single pathfinders")),
                value("save_single_paths", kind::boolean, "false", "Output single-path pathfinder draws as CSV"),
                value("psis_resample", kind::boolean, "true", "If true, perform psis resampling on samples returned from individual pathfinders"),
                value("calculate_lp", kind::boolean, "true", "If true, individual pathfinders lp calculations are calculated and returned with the output"),
                positive(value("max_lbfgs_iters", kind::integer, "1000", "Maximum number of LBFGS iterations")),
                positive(value("num_draws", kind::integer, "1000", "Number of approximate posterior draws")),
                positive(value("num_elbo_draws", kind::integer, "25", "Number of Monte Carlo draws to evaluate ELBO"))})
    pathfinder_settings.push_back(a);
  arg pathfinder = group("pathfinder", pathfinder_settings, "Pathfinder algorithm");

  arg log_prob = group(
      "log_prob",
      {value("unconstrained_params", kind::text, "", "Input file (JSON or CSV) of parameter values on unconstrained scale"),
       value("constrained_params", kind::text, "", "Input file (JSON or CSV) of parameter values on constrained scale"),
       value("jacobian", kind::boolean, "true", "When true, include change-of-variables adjustment for constraining parameter transforms")},
      "Return the log density up to a constant and its gradients, given supplied parameters");

  arg laplace = group(
      "laplace",
      {value("mode", kind::text, "", "A specification of a mode on the constrained scale for all model parameters, either in JSON or CSV format."),
       value("jacobian", kind::boolean, "true", "When true, include change-of-variables adjustment for constraining parameter transforms"),
       positive(value("draws", kind::integer, "1000", "Number of draws from the laplace approximation")),
       value("calculate_lp", kind::boolean, "true", "If true, the log density of the model is calculated for each draw")},
      "Sample from a Laplace approximation");

  arg method = list("method", "sample",
                    {sample, optimize, variational, diagnose, generate_quantities, pathfinder, log_prob, laplace},
                    "Analysis method (Note that method= is optional)");

  arg seed = value("seed", kind::unsigned_integer, "-1", "Random number generator seed");
  seed.lower = -1;
  return {method,
          non_negative(value("id", kind::integer, "1", "Unique process identifier")),
          group("data", {value("file", kind::text, "", "Input data file")}, "Input data options"),
          value("init", kind::text, "2", "Initialization method: \"x\" initializes randomly between [-x, x], \"0\" initializes to 0, anything else identifies a file of values"),
          group("random", {seed}, "Random number configuration"),
          group("output",
                {value("file", kind::text, "output.csv", "Output file"),
                 value("diagnostic_file", kind::text, "", "Auxiliary output file for diagnostic information"),
                 non_negative(value("refresh", kind::integer, "100", "Number of iterations between screen updates")),
                 bounded(value("sig_figs", kind::integer, "-1", "The number of significant figures used for the output CSV files."), -1, 18),
                 value("profile_file", kind::text, "profile.csv", "File to store profiling information"),
                 value("save_cmdstan_config", kind::boolean, "false", "Save the configuration of this run as JSON")},
                "File output options"),
          bounded(value("num_threads", kind::integer, "1", "Number of threads available to the program."), -1,
                  std::numeric_limits<double>::infinity())};
}

// CmdStan marks a value "(Default)" when it equals the default, whether or
// not it was given on the command line (cmdstanpy always passes id=1).
inline bool equals_default(const arg& a) {
  if (a.value == a.default_value)
    return true;
  if (a.type == kind::integer || a.type == kind::unsigned_integer || a.type == kind::real) {
    char* end = nullptr;
    double x = std::strtod(a.value.c_str(), &end);
    char* end_default = nullptr;
    double d = std::strtod(a.default_value.c_str(), &end_default);
    return *end == '\0' && *end_default == '\0' && x == d;
  }
  return false;
}

inline void set_value(arg& a, const std::string& text) {
  a.given = true;
  if (a.type == kind::boolean) {
    if (text == "1" || text == "true")
      a.value = "true";
    else if (text == "0" || text == "false")
      a.value = "false";
    else
      throw usage_error(text + " is not a valid value for \"" + a.name + "\"\n  Valid values: 0, 1, true, false");
    a.is_default = equals_default(a);
    return;
  }
  if (a.type == kind::integer || a.type == kind::unsigned_integer || a.type == kind::real) {
    char* end = nullptr;
    double x = std::strtod(text.c_str(), &end);
    bool integral = a.type != kind::real;
    bool ok = !text.empty() && end && *end == '\0';
    if (ok && integral)
      ok = text.find_first_of(".eE") == std::string::npos;
    if (ok && a.type == kind::unsigned_integer && a.name != "seed")
      ok = x >= 0;
    if (ok)
      ok = (a.lower_open ? x > a.lower : x >= a.lower) && x <= a.upper;
    if (a.name == "seed" && ok)
      ok = x <= 4294967295.0;
    if (!ok) {
      std::string valid = integral ? "an integer" : "a number";
      if (a.lower > -std::numeric_limits<double>::infinity())
        valid += std::string(a.lower_open ? " > " : " >= ") + std::to_string(static_cast<long long>(a.lower));
      throw usage_error(text + " is not a valid value for \"" + a.name + "\"\n  Valid values: " + valid);
    }
  }
  a.value = text;
  a.is_default = equals_default(a);
}

// Parses tokens for the children of `scope`, consuming as many as it can.
// Returns when the front token names nothing in this scope.
inline void parse_scope(arg& scope, std::deque<std::string>& tokens);

inline bool parse_token_in(arg& scope, std::deque<std::string>& tokens) {
  const std::string token = tokens.front();
  const auto eq = token.find('=');
  const std::string name = token.substr(0, eq);
  const bool has_value = eq != std::string::npos;
  const std::string val = has_value ? token.substr(eq + 1) : "";
  for (auto& c : scope.children) {
    if (c.type == kind::list && !has_value && c.child(name)) {
      tokens.pop_front();  // bare choice: "sample" means "method=sample"
      c.value = name;
      c.is_default = c.value == c.default_value;
      parse_scope(*c.selected(), tokens);
      return true;
    }
    if (c.name != name)
      continue;
    tokens.pop_front();
    if (c.type == kind::group) {
      if (has_value)
        throw usage_error(name + " is a group of arguments and takes no value");
      parse_scope(c, tokens);
    } else if (c.type == kind::list) {
      if (!has_value || !c.child(val)) {
        std::string choices;
        for (auto& ch : c.children)
          choices += " " + ch.name;
        throw usage_error(val + " is not a valid value for \"" + name + "\"\n  Valid values:" + choices);
      }
      c.value = val;
      c.is_default = c.value == c.default_value;
      parse_scope(*c.selected(), tokens);
    } else {
      if (!has_value)
        throw usage_error(name + " requires a value (" + name + "=...)");
      set_value(c, val);
    }
    return true;
  }
  return false;
}

inline void parse_scope(arg& scope, std::deque<std::string>& tokens) {
  while (!tokens.empty() && parse_token_in(scope, tokens)) {
  }
}

// Parses a whole command line (without argv[0]) into the tree `root`.
inline void parse_command_line(std::vector<arg>& root, std::deque<std::string> tokens) {
  arg top = group("", std::move(root));
  while (!tokens.empty()) {
    if (!parse_token_in(top, tokens))
      throw usage_error(tokens.front() + " is either mistyped or misplaced.");
  }
  root = std::move(top.children);
}

// Looks up a value by path, e.g. find(root, {"output", "file"}).
inline const arg& find(const std::vector<arg>& root, const std::vector<std::string>& path) {
  const arg* cur = nullptr;
  for (const auto& a : root)
    if (a.name == path.at(0))
      cur = &a;
  // A list's children are its choices, so a path may name any choice (its
  // settings keep their defaults when another choice is selected).
  for (size_t i = 1; cur && i < path.size(); ++i)
    cur = cur->child(path[i]);
  if (!cur)
    throw std::logic_error("unknown argument path " + path.back());
  return *cur;
}

// Writes the tree in the layout of CmdStan's configuration block (each line is
// then prefixed with "# " by the CSV writer).
template <typename Emit>
void print_tree(const arg& a, int depth, Emit&& emit) {
  const std::string indent(2 * depth, ' ');
  if (a.type == kind::group) {
    emit(indent + a.name);
    for (const auto& c : a.children)
      print_tree(c, depth + 1, emit);
    return;
  }
  emit(indent + a.name + " = " + a.value + (a.is_default ? " (Default)" : ""));
  if (a.type == kind::list) {
    const arg* s = a.selected();
    if (a.print_choice || !s->children.empty())
      print_tree(*s, depth + 1, emit);
  }
}

template <typename Emit>
void print_help(const arg& a, int depth, Emit&& emit) {
  const std::string indent(2 * depth, ' ');
  std::string line = indent + a.name;
  if (a.type == kind::list) {
    line += "=<list element>";
  } else if (a.type != kind::group) {
    line += "=<" + std::string(a.type == kind::boolean ? "boolean" : a.type == kind::text ? "string"
                                                                 : a.type == kind::real   ? "double"
                                                                                          : "int") +
            ">";
  }
  emit(line);
  if (!a.description.empty())
    emit(indent + "  " + a.description);
  if (a.type == kind::list) {
    std::string choices = indent + "  Valid values:";
    for (const auto& c : a.children)
      choices += " " + c.name;
    emit(choices);
  }
  if (a.type != kind::group && a.type != kind::list)
    emit(indent + "  Defaults to " + (a.default_value.empty() ? "\"\"" : a.default_value));
  emit("");
  for (const auto& c : a.children)
    print_help(c, depth + 1, emit);
}

}  // namespace bayeswe

#endif
