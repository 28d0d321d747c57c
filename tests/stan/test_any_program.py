"""``bayeswe.fit`` on Stan programs that have no Python declaration.

The programs in ``tests/stan/programs`` were written for these tests in the
style of the Stan User's Guide. Nothing is mocked: they are compiled by the
bundled toolchain (once; executables are cached outside the repository) and
run with small iteration counts and fixed seeds. Where the posterior is known
exactly (conjugate models, order statistics) the draws are checked against it
within a multiple of the Monte Carlo standard error.
"""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
import pytest

import bayeswe
from bayeswe.errors import ModelSpecError, StanCompileError, StanDataError, StanRuntimeError
from bayeswe.fit import METHODS
from bayeswe.model_spec import DataField, StanModelSpec
from bayeswe.stan.program_info import evaluate_size, parse_declarations, program_info

PROGRAMS = Path(__file__).parent / "programs"
EIGHT_SCHOOLS = PROGRAMS / "eight_schools_noncentered.stan"
DIRICHLET = PROGRAMS / "dirichlet_multinomial.stan"
CORRELATED = PROGRAMS / "correlated_normal.stan"
COMPLEX_TUPLE = PROGRAMS / "complex_and_tuple.stan"
LAPLACE_THROWS = PROGRAMS / "laplace_draw_throws.stan"
NORMAL = Path(__file__).parents[1] / "stan_models" / "normal_known_sigma.stan"

SCHOOLS = {
    "J": 8,
    "y": [28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0],
    "sigma": [15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0],
}
SCHOOL_OUTPUTS = {
    "mu": (),
    "tau": (),
    "eta": ("eta_dim_0",),
    "theta": ("theta_dim_0",),
    "y_rep": ("y_rep_dim_0",),
}
COUNTS = {"K": 4, "counts": [6, 0, 11, 3], "alpha": [1.0, 1.0, 1.0, 1.0]}
SHORT_NUTS = {"chains": 2, "iter_warmup": 200, "iter_sampling": 200}


def correlated_data(n: int = 40, k: int = 3) -> dict[str, Any]:
    rng = np.random.default_rng(11)
    cov = np.array([[1.0, 0.5, 0.0], [0.5, 2.0, -0.4], [0.0, -0.4, 0.5]])[:k, :k]
    y = rng.multivariate_normal(np.arange(k, dtype=float), cov, size=n)
    return {"N": n, "K": k, "y": y, "prior_mu": np.vstack([np.zeros(k), np.full(k, 5.0)])}


def dims_of(idata: az.InferenceData, group: str = "posterior") -> dict[str, tuple[str, ...]]:
    return {name: tuple(var.dims) for name, var in idata[group].data_vars.items()}


def assert_mean_within_mcse(draws: np.ndarray, truth: float | np.ndarray, what: str) -> None:
    """|mean - truth| < 4 MCSE, per component; draws are (chain, draw, ...)."""
    flat = draws.reshape(*draws.shape[:2], -1)
    mcse = np.array([np.asarray(az.mcse(flat[..., i])).item() for i in range(flat.shape[-1])])
    error = np.abs(flat.mean(axis=(0, 1)) - np.broadcast_to(truth, draws.shape[2:]).ravel())
    # 4 MCSE: a 1-in-15,000 event per component for a correct sampler
    assert np.all(error < 4 * mcse), f"{what}: error {error} vs 4 MCSE {4 * mcse}"


def assert_moments(draws: np.ndarray, mean: np.ndarray, sd: np.ndarray, what: str) -> None:
    """Mean and variance against the truth, each within 4 of its own MCSE.

    The variance is checked as the mean of (draw - true mean)^2, whose expectation is the
    true variance and whose MCSE ArviZ estimates like any other mean, whatever the shape
    of the distribution.
    """
    assert_mean_within_mcse(draws, mean, f"{what} mean")
    assert_mean_within_mcse((draws - mean) ** 2, np.asarray(sd) ** 2, f"{what} variance")


def not_compiled(stan_file: Path) -> bool:
    from bayeswe.stan.toolchain import cache_dir

    return not list((cache_dir() / "models").glob(f"{stan_file.stem}-*"))


# --------------------------------------------------------------------------- no Stan run


class TestProgramReading:
    def test_evaluate_size(self) -> None:
        ints = {"N": 7, "K": 3}
        assert evaluate_size("N", ints) == 7
        assert evaluate_size("K * (N - 1) + 2", ints) == 20
        assert evaluate_size("N %/% 2", ints) == 3
        assert evaluate_size("-N / 2", ints) == -3  # Stan truncates toward zero
        assert evaluate_size("max(N, K)", ints) == 7
        assert evaluate_size("size(y)", ints, {"y": [1.0, 2.0]}) == 2
        assert evaluate_size("M", ints) is None  # transformed data, unknown here
        assert evaluate_size("N > 2 ? 1 : 2", ints) is None
        assert evaluate_size("N / 0", ints) is None

    def test_parse_declarations(self) -> None:
        text = """data {
  int<lower=0> N;
  array[N, 2] int<lower=0, upper=max(N, 3)> counts;
  real<lower=-1> a, b = 2;
  cholesky_factor_cov[N + 1, N] L;
  tuple(real, array[2] int) t;
}
generated quantities {
  corr_matrix[N] Omega;
  print("not; a declaration {");
  {
    real hidden = 1;
  }
  for (n in 1:N) {
    real also_hidden = n;
  }
  array[N] vector<offset=0, multiplier=2>[3] z;
}
"""
        found = parse_declarations(text)
        data = found["data"]
        assert data["N"]["sizes"] == ()
        assert data["counts"]["sizes"] == ("N", "2")
        assert data["counts"]["declaration"] == "array[N, 2] int<lower=0, upper=max(N, 3)> counts"
        assert data["a"]["sizes"] == data["b"]["sizes"] == ()
        assert data["L"]["sizes"] == ("N + 1", "N")
        assert data["t"]["sizes"] is None
        gq = found["generated quantities"]
        assert set(gq) == {"Omega", "z"}
        assert gq["Omega"]["sizes"] == ("N", "N")
        assert gq["z"]["sizes"] == ("N", "3")


@pytest.fixture(scope="module")
def toolchain() -> None:
    from bayeswe.stan import toolchain as module

    module.ensure_cmdstan()


class TestProgramInfo:
    def test_inputs_and_outputs(self, toolchain: None) -> None:
        info = program_info(CORRELATED)
        assert list(info.inputs) == ["N", "K", "y", "prior_mu"]
        y = info.inputs["y"]
        assert (y.type, y.ndim, y.sizes) == ("real", 2, ("N", "K"))
        assert y.shape({"N": 5, "K": 2}) == (5, 2)
        assert list(info.outputs) == ["mu", "tau", "L_Omega", "L_Sigma", "Omega", "Sigma", "y_new"]
        assert info.outputs["L_Sigma"].block == "transformed parameters"
        assert info.outputs["y_new"].sizes == ("2", "K")

    def test_syntax_error_is_a_compile_error(self, toolchain: None, tmp_path: Path) -> None:
        bad = tmp_path / "bad_syntax.stan"
        bad.write_text("parameters { real mu }\nmodel { mu ~ normal(0, 1); }\n")
        with pytest.raises(StanCompileError) as info:
            bayeswe.fit(bad, {}, method="map")
        assert "expected" in info.value.stan_message

    def test_missing_program(self) -> None:
        with pytest.raises(FileNotFoundError, match="no_such_program"):
            bayeswe.fit("no_such_program.stan", {}, method="map")


# --------------------------------------------------------------------------- data errors


@pytest.fixture()
def fresh_schools(tmp_path: Path, toolchain: None) -> Path:
    """A copy of the eight-schools program never compiled before (unique name and source)."""
    tag = uuid.uuid4().hex[:12]
    path = tmp_path / f"schools_{tag}.stan"
    path.write_text(f"// copy {tag}\n" + EIGHT_SCHOOLS.read_text())
    return path


class TestDataErrors:
    """Bad data raise StanDataError naming the field, before the program is compiled."""

    @pytest.mark.parametrize(
        ("change", "field", "words"),
        [
            ({"sigma": None}, "sigma", ["missing", "vector<lower=0>[J] sigma"]),
            ({"sigma": SCHOOLS["sigma"][:7]}, "sigma", ["(7,)", "(8,)", "J = 8"]),
            ({"y": [SCHOOLS["y"]]}, "y", ["2 axes", "expected 1"]),
            ({"J": 8.5}, "J", ["int", "non-integer"]),
            ({"sigma": ["a"] * 8}, "sigma", ["numeric"]),
        ],
    )
    def test_bad_field(
        self, fresh_schools: Path, change: dict[str, Any], field: str, words: list[str]
    ) -> None:
        data = {k: v for k, v in {**SCHOOLS, **change}.items() if v is not None}
        with pytest.raises(StanDataError) as info:
            bayeswe.fit(fresh_schools, data, method="nuts", seed=1)
        message = str(info.value)
        assert f"'{field}'" in message
        for word in words:
            assert word in message
        assert not_compiled(fresh_schools)

    def test_int_array_with_reals(self, toolchain: None) -> None:
        data = {**COUNTS, "counts": [6, 0.5, 11, 3]}
        with pytest.raises(StanDataError, match="'counts' is declared int"):
            bayeswe.fit(DIRICHLET, data, method="map")

    @pytest.mark.parametrize(
        ("field", "value", "words"),
        [
            ("y", np.zeros((40, 4)), ["'y'", "(40, 4)", "(40, 3)", "N = 40, K = 3"]),
            ("prior_mu", np.zeros((3, 3)), ["'prior_mu'", "matrix[2, K] prior_mu"]),
        ],
    )
    def test_wrong_shape_of_arrays_and_matrices(
        self, toolchain: None, field: str, value: np.ndarray, words: list[str]
    ) -> None:
        data = {**correlated_data(), field: value}
        with pytest.raises(StanDataError) as info:
            bayeswe.fit(CORRELATED, data, method="map")
        for word in words:
            assert word in str(info.value)

    def test_data_file_errors(self, toolchain: None, tmp_path: Path) -> None:
        with pytest.raises(StanDataError, match="cannot read"):
            bayeswe.fit(EIGHT_SCHOOLS, tmp_path / "absent.json", method="map")
        broken = tmp_path / "broken.json"
        broken.write_text("{not json")
        with pytest.raises(StanDataError, match="not valid JSON"):
            bayeswe.fit(EIGHT_SCHOOLS, broken, method="map")
        with pytest.raises(StanDataError, match="mapping"):
            bayeswe.fit(EIGHT_SCHOOLS, [1, 2], method="map")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- dims and coords


class TestDimsErrors:
    """dims/coords that cannot work are refused before anything is compiled."""

    @pytest.mark.parametrize(
        ("dims", "coords", "match"),
        [
            ({"sigma": ["J"]}, None, "'J' of 'sigma' is also a variable of the constant_data"),
            ({"theta": ["mu"]}, None, "'mu' of 'theta' is also a variable of the posterior"),
            ({"thetas": ["school"]}, None, "'thetas', which the program does not have"),
            ({"theta": ["school", "extra"]}, None, "1 axes but 2 dims"),
            ({"theta": "school"}, None, "list of dim names"),
            ({"theta": ["chain"]}, None, "reserved"),
            ({"theta": ["s"], "tau": []}, {"school": list("ABCDEFGH")}, "'school', which no"),
            ({"theta": ["s"]}, {"s": list("ABC")}, "length 8"),
        ],
    )
    def test_refused(
        self,
        fresh_schools: Path,
        dims: dict[str, Any],
        coords: dict[str, Any] | None,
        match: str,
    ) -> None:
        with pytest.raises(ModelSpecError, match=match):
            bayeswe.fit(fresh_schools, SCHOOLS, method="nuts", dims=dims, coords=coords)
        assert not_compiled(fresh_schools)

    def test_one_dim_two_lengths(self, toolchain: None) -> None:
        with pytest.raises(ModelSpecError, match="dim 'k' has length 40 in 'y' but 3"):
            bayeswe.fit(CORRELATED, correlated_data(), method="map", dims={"y": ["k"], "mu": ["k"]})

    def test_registered_models_keep_their_dims(self) -> None:
        with pytest.raises(ValueError, match="part of its declaration"):
            bayeswe.fit("sgns", {}, method="map", dims={"rho": ["a", "b"]})


# --------------------------------------------------------------------------- eight schools


@pytest.fixture(scope="module")
def schools_nuts(toolchain: None) -> az.InferenceData:
    return bayeswe.fit(EIGHT_SCHOOLS, SCHOOLS, method="nuts", seed=42, **SHORT_NUTS)


class TestEightSchools:
    def test_nuts_structure_and_default_dims(self, schools_nuts: az.InferenceData) -> None:
        idata = schools_nuts
        assert set(idata.groups()) == {"posterior", "sample_stats", "constant_data"}
        assert dims_of(idata) == {k: ("chain", "draw", *v) for k, v in SCHOOL_OUTPUTS.items()}
        assert idata.posterior.sizes["chain"] == 2
        assert idata.posterior.sizes["draw"] == 200
        assert idata.posterior.sizes["theta_dim_0"] == 8
        np.testing.assert_array_equal(idata.posterior["theta_dim_0"].values, np.arange(8))
        assert dims_of(idata, "constant_data") == {
            "J": (),
            "y": ("y_dim_0",),
            "sigma": ("sigma_dim_0",),
        }
        assert int(idata.constant_data["J"]) == 8
        np.testing.assert_array_equal(idata.constant_data["sigma"].values, SCHOOLS["sigma"])
        assert {"lp", "diverging", "step_size", "tree_depth"} <= set(idata.sample_stats.data_vars)
        attrs = idata.posterior.attrs
        assert attrs["model"] == "eight_schools_noncentered"
        assert attrs["stan_file"] == str(EIGHT_SCHOOLS)
        assert attrs["method"] == "nuts" and attrs["seed"] == 42
        # theta is a transformed parameter: mu + tau * eta, to CSV precision (6 digits)
        post = idata.posterior
        expected = post["mu"] + post["tau"] * post["eta"].rename(eta_dim_0="theta_dim_0")
        np.testing.assert_allclose(post["theta"], expected, rtol=1e-4, atol=1e-4)

    def test_json_file_gives_the_same_draws(
        self, schools_nuts: az.InferenceData, tmp_path: Path
    ) -> None:
        path = tmp_path / "schools.json"
        path.write_text(json.dumps(SCHOOLS))
        for given in (path, str(path)):
            idata = bayeswe.fit(str(EIGHT_SCHOOLS), given, method="nuts", seed=42, **SHORT_NUTS)
            np.testing.assert_array_equal(
                idata.posterior["theta"].values, schools_nuts.posterior["theta"].values
            )
            np.testing.assert_array_equal(idata.constant_data["y"].values, SCHOOLS["y"])

    def test_user_dims_and_coords(self, schools_nuts: az.InferenceData) -> None:
        names = [f"school {c}" for c in "ABCDEFGH"]
        dims = {v: ["school"] for v in ("eta", "theta", "y_rep", "y", "sigma")}
        idata = bayeswe.fit(
            EIGHT_SCHOOLS,
            SCHOOLS,
            method="nuts",
            seed=42,
            dims=dims,
            coords={"school": names},
            **SHORT_NUTS,
        )
        assert idata.posterior["theta"].dims == ("chain", "draw", "school")
        assert idata.constant_data["sigma"].dims == ("school",)
        assert list(idata.posterior["school"].values) == names
        assert list(idata.constant_data["school"].values) == names
        # naming dims does not change the draws
        np.testing.assert_array_equal(
            idata.posterior["theta"].values, schools_nuts.posterior["theta"].values
        )

    def test_save_warmup(self) -> None:
        options = {**SHORT_NUTS, "iter_warmup": 100, "iter_sampling": 60, "thin": 3}
        # This program's generated quantities draw no random numbers, so keeping the
        # warmup draws (which runs them during warmup too) leaves the sampling draws as
        # they were; with _rng calls in generated quantities it would not.
        plain = bayeswe.fit(DIRICHLET, COUNTS, method="nuts", seed=7, **options)
        idata = bayeswe.fit(DIRICHLET, COUNTS, method="nuts", seed=7, save_warmup=True, **options)
        assert {"warmup_posterior", "warmup_sample_stats"} <= set(idata.groups())
        assert "warmup_posterior" not in plain.groups()
        assert idata.warmup_posterior.sizes["draw"] == math.ceil(100 / 3)
        assert idata.posterior.sizes["draw"] == 60 // 3
        assert idata.warmup_posterior.sizes["chain"] == 2
        assert dims_of(idata, "warmup_posterior") == dims_of(idata)
        assert set(idata.warmup_sample_stats.data_vars) == set(idata.sample_stats.data_vars)
        # step size is adapted during warmup, fixed afterwards
        assert np.ptp(idata.warmup_sample_stats["step_size"].values[0]) > 0
        assert np.ptp(idata.sample_stats["step_size"].values[0]) == 0
        np.testing.assert_array_equal(
            idata.posterior["theta"].values, plain.posterior["theta"].values
        )
        assert json.loads(idata.posterior.attrs["options"])["save_warmup"] is True

    @pytest.mark.parametrize("method", [m for m in METHODS if m != "nuts"])
    def test_every_method_same_names_dims_coords(
        self, schools_nuts: az.InferenceData, tmp_path: Path, method: str
    ) -> None:
        out = tmp_path / "stan output"
        idata = bayeswe.fit(EIGHT_SCHOOLS, SCHOOLS, method=method, seed=3, output_dir=out)
        assert dims_of(idata) == dims_of(schools_nuts)
        assert dims_of(idata, "constant_data") == dims_of(schools_nuts, "constant_data")
        for dim in ("eta_dim_0", "theta_dim_0", "y_rep_dim_0"):
            np.testing.assert_array_equal(idata.posterior[dim], schools_nuts.posterior[dim])
        assert idata.posterior.sizes["chain"] == 1
        assert {"lp"} <= set(idata.sample_stats.data_vars)
        assert len(list(out.glob("eight_schools_noncentered-*.csv"))) == 1
        if method == "laplace":
            assert len(list((out / "mode").glob("eight_schools_noncentered-*.csv"))) == 1

    def test_output_dir_keeps_csv_files(self, tmp_path: Path) -> None:
        import cmdstanpy

        out = tmp_path / "nested" / "out"
        idata = bayeswe.fit(
            EIGHT_SCHOOLS, SCHOOLS, method="nuts", seed=5, output_dir=out, **SHORT_NUTS
        )
        csvs = sorted(out.glob("eight_schools_noncentered-*.csv"))
        assert len(csvs) == 2
        again = cmdstanpy.from_csv([str(p) for p in csvs])
        np.testing.assert_array_equal(
            again.stan_variable("mu").reshape(2, 200), idata.posterior["mu"].values
        )
        assert json.loads(idata.posterior.attrs["options"])["output_dir"] == str(out)

    def test_size_field_named_dims_do_not_collide(self, toolchain: None) -> None:
        """Issue 14 (a): sigma sized J, J itself in constant_data."""
        spec = StanModelSpec(
            name="eight_schools_declared",
            stan_file=EIGHT_SCHOOLS,
            data_fields=(
                DataField("J", "int"),
                DataField("y", "real", ("J",), observed=True),
                DataField("sigma", "real", ("J",)),
            ),
            dims={"eta": ("school",), "theta": ("school",), "y_rep": ("school",)},
        )
        idata = bayeswe.fit(spec, SCHOOLS, method="map", seed=1)
        assert idata.constant_data["sigma"].dims == ("J_dim",)
        assert idata.observed_data["y"].dims == ("J_dim",)
        assert int(idata.constant_data["J"]) == 8
        assert idata.posterior["theta"].dims == ("chain", "draw", "school")


# --------------------------------------------------------------------------- exact answers


class TestKnownPosteriors:
    def test_conjugate_normal_from_json(self, toolchain: None, tmp_path: Path) -> None:
        rng = np.random.default_rng(3)
        data = {"N": 25, "y": rng.normal(1.0, 2.0, 25).tolist(), "sigma": 2.0, "m0": 0.0, "s0": 3.0}
        path = tmp_path / "normal.json"
        path.write_text(json.dumps(data))
        idata = bayeswe.fit(NORMAL, path, method="nuts", seed=8, chains=4)
        precision = 1 / data["s0"] ** 2 + data["N"] / data["sigma"] ** 2
        mean = (data["m0"] / data["s0"] ** 2 + sum(data["y"]) / data["sigma"] ** 2) / precision
        assert_moments(idata.posterior["mu"].values, mean, 1 / math.sqrt(precision), "mu")
        # no declaration: everything the program writes is in the posterior
        assert dims_of(idata) == {
            "mu": ("chain", "draw"),
            "log_lik": ("chain", "draw", "log_lik_dim_0"),
            "y_rep": ("chain", "draw", "y_rep_dim_0"),
        }

    def test_dirichlet_multinomial_and_ordered(self, toolchain: None) -> None:
        idata = bayeswe.fit(DIRICHLET, COUNTS, method="nuts", seed=9, chains=4)
        a = np.asarray(COUNTS["alpha"]) + np.asarray(COUNTS["counts"])
        total = a.sum()
        mean = a / total
        sd = np.sqrt(a * (total - a) / (total**2 * (total + 1)))
        theta = idata.posterior["theta"].values
        assert theta.shape == (4, 1000, 4)
        assert idata.posterior["theta"].dims == ("chain", "draw", "theta_dim_0")
        np.testing.assert_allclose(theta.sum(axis=-1), 1.0, atol=1e-5)
        assert_moments(theta, mean, sd, "theta")
        # cut ~ two iid standard normals, ordered: E max = 1/sqrt(pi), Var = 1 - 1/pi
        cut = idata.posterior["cut"].values
        assert np.all(cut[..., 0] < cut[..., 1])
        e_max = 1 / math.sqrt(math.pi)
        sd_order = math.sqrt(1 - 1 / math.pi)
        assert_moments(cut, np.array([-e_max, e_max]), np.full(2, sd_order), "cut")
        assert set(np.unique(idata.posterior["mode_category"].values)) <= {1.0, 2.0, 3.0, 4.0}

    def test_simplex_through_laplace(self, toolchain: None) -> None:
        """Issue 14 (c): the mode is read back with full precision, so the simplex is valid."""
        n = 2000
        idata = bayeswe.fit(DIRICHLET, COUNTS, method="laplace", seed=10, draws=n, sig_figs=9)
        theta = idata.posterior["theta"].values
        assert theta.shape == (1, n, 4)
        np.testing.assert_allclose(theta.sum(axis=-1), 1.0, atol=1e-8)
        # The Laplace approximation (Gaussian on the unconstrained scale, with the
        # Jacobian) is not the Dirichlet posterior, but it is near it.
        a = np.asarray(COUNTS["alpha"]) + np.asarray(COUNTS["counts"])
        sd = np.sqrt(a * (a.sum() - a) / (a.sum() ** 2 * (a.sum() + 1)))
        assert np.all(np.abs(theta.mean(axis=(0, 1)) - a / a.sum()) < sd)
        assert {"lp", "lp_approx"} <= set(idata.sample_stats.data_vars)


# --------------------------------------------------------------------------- other shapes


@pytest.fixture(scope="module")
def correlated_nuts(toolchain: None) -> az.InferenceData:
    return bayeswe.fit(CORRELATED, correlated_data(), method="nuts", seed=12, **SHORT_NUTS)


class TestArraysOfVectorsAndMatrices:
    def test_shapes_and_dims(self, correlated_nuts: az.InferenceData) -> None:
        idata = correlated_nuts
        post = idata.posterior
        k = 3
        expected = {
            "mu": (k,),
            "tau": (k,),
            "L_Omega": (k, k),
            "L_Sigma": (k, k),
            "Omega": (k, k),
            "Sigma": (k, k),
            "y_new": (2, k),
        }
        for name, shape in expected.items():
            assert post[name].shape[2:] == shape
            assert post[name].dims[2:] == tuple(f"{name}_dim_{i}" for i in range(len(shape)))
        assert idata.constant_data["y"].dims == ("y_dim_0", "y_dim_1")
        assert idata.constant_data["y"].shape == (40, k)
        assert idata.constant_data["prior_mu"].shape == (2, k)
        omega = post["Omega"].values
        np.testing.assert_allclose(np.diagonal(omega, axis1=-2, axis2=-1), 1.0, atol=1e-5)
        lsig = post["L_Sigma"].values
        sigma = post["Sigma"].values
        np.testing.assert_allclose(sigma, lsig @ np.swapaxes(lsig, -1, -2), rtol=1e-4, atol=1e-5)
        assert np.all(np.triu(post["L_Omega"].values[0, 0], 1) == 0)

    @pytest.mark.parametrize("method", ["map", "pathfinder"])
    def test_same_names_and_dims(self, correlated_nuts: az.InferenceData, method: str) -> None:
        other = bayeswe.fit(CORRELATED, correlated_data(), method=method, seed=2)
        assert dims_of(other) == dims_of(correlated_nuts)
        assert dims_of(other, "constant_data") == dims_of(correlated_nuts, "constant_data")


class TestComplexAndTuples:
    @pytest.mark.parametrize("method", ["nuts", "map"])
    def test_outputs(self, toolchain: None, method: str) -> None:
        options = {"chains": 1, "iter_warmup": 100, "iter_sampling": 50} if method == "nuts" else {}
        idata = bayeswe.fit(COMPLEX_TUPLE, {"N": 3}, method=method, seed=4, **options)
        post = idata.posterior
        assert dims_of(idata) == {
            "mu": ("chain", "draw"),
            "z": ("chain", "draw"),
            "zs": ("chain", "draw", "zs_dim_0", "zs_dim_1"),
            "pair.1": ("chain", "draw"),
            "pair.2": ("chain", "draw", "pair.2_dim_0"),
        }
        mu = post["mu"].values
        # each CSV column is rounded to 6 significant digits on its own
        np.testing.assert_allclose(post["z"].values, mu - 1j * mu, rtol=1e-5)
        np.testing.assert_allclose(post["zs"].values[..., 1, 2], 2 * (mu - 1j * mu), rtol=1e-5)
        np.testing.assert_allclose(post["pair.1"].values, 2 * mu, rtol=1e-5)
        np.testing.assert_array_equal(post["pair.2"].values[0, 0], [1, 2, 3])


class TestLaplaceFailure:
    def test_message_of_the_laplace_run_is_kept(self, toolchain: None, tmp_path: Path) -> None:
        """Issue 14 (b): the mode run and the draws run no longer share file names."""
        for out in (None, tmp_path):  # a temporary directory, and the user's
            with pytest.raises(StanRuntimeError) as info:
                bayeswe.fit(LAPLACE_THROWS, {"m": 1.5}, method="laplace", seed=1, output_dir=out)
            assert "a Laplace draw is" in info.value.stan_message
            assert "a Laplace draw is" in str(info.value).splitlines()[0]
