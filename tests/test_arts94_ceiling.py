"""benchmarks/arts94_ceiling.py: its core functions at a tiny size, on the real ARTS94 data."""

from __future__ import annotations

import numpy as np
import pytest
from repo_scripts import load_script
from scipy.stats import spearmanr


@pytest.fixture(scope="module")
def ceiling():
    return load_script("benchmarks/arts94_ceiling.py")


@pytest.fixture(scope="module")
def arts94(ceiling, data_dir):
    data = ceiling.load_arts94(data_dir)
    latent = ceiling.fit_latent(data.decisions, data.a, data.b, data.n)
    return data, latent


def toy_decisions(truth: np.ndarray, raters: int, seed: int, slopes=None):
    """Every pair of texts played once, each rater deciding by the Bradley-Terry odds of ``truth``."""
    a, b = np.triu_indices(len(truth), k=1)
    slopes = np.ones(raters) if slopes is None else np.asarray(slopes, dtype=float)
    p = 1.0 / (1.0 + 10.0 ** (-slopes[:, None] * (truth[a] - truth[b])[None, :] / 400.0))
    return (np.random.default_rng(seed).random(p.shape) < p).astype(float), a, b


def test_bt_fit_orders_a_toy_data_set(ceiling):
    truth = np.array([900.0, 1300.0, 1000.0, 1500.0, 1150.0, 1400.0])
    decisions, a, b = toy_decisions(truth, raters=200, seed=1)
    fitted = ceiling.fit_latent(decisions, a, b, len(truth))
    assert list(np.argsort(fitted)) == list(np.argsort(truth))
    assert fitted.mean() == pytest.approx(1200.0)
    # the wins matrix counts "i judged harder than j" from both sides of every match
    wins = ceiling.wins_matrix(decisions, a, b, len(truth))
    assert wins.sum() == decisions.size
    assert wins[3, 0] > wins[0, 3]


def test_rater_slopes_and_overdispersion_on_toy_data(ceiling):
    truth = np.linspace(800.0, 1600.0, 12)
    decisions, a, b = toy_decisions(truth, raters=3, seed=2, slopes=[0.5, 1.0, 3.0])
    slopes = ceiling.fit_rater_slopes(decisions, a, b, truth)
    assert slopes[0] < slopes[1] < slopes[2]
    # independent decisions given the latent: no excess; a rater who sees a text
    # 500 points off on every match: a clear excess
    plain, a, b = toy_decisions(truth, raters=20, seed=3)
    assert ceiling.overdispersion(plain, a, b, truth) == pytest.approx(1.0, abs=0.25)
    biased = (
        np.tile(truth, (20, 1)) + np.where(np.arange(12) % 2, 500.0, -500.0) * np.sign(np.arange(20) - 9.5)[:, None]
    )
    p = 1.0 / (1.0 + 10.0 ** (-(biased[:, a] - biased[:, b]) / 400.0))
    skewed = (np.random.default_rng(4).random(p.shape) < p).astype(float)
    assert ceiling.overdispersion(skewed, a, b, truth) > 2.0


def test_elo_replay_matches_the_published_majority(ceiling, arts94):
    data, _ = arts94
    replayed = ceiling.elo_ratings(data.published, data.a, data.b, data.n)
    np.testing.assert_allclose(replayed, data.majority_elo)
    assert spearmanr(data.gpt4_elo, data.majority_elo)[0] == pytest.approx(0.8016, abs=5e-4)


def test_simulated_ceiling_is_a_correlation_above_gpt4(ceiling, arts94):
    data, latent = arts94
    model = ceiling.Model("shared", latent, np.ones(len(data.raters)))
    sim = ceiling.simulate(model, data, reps=5, rng=np.random.default_rng(0))
    gpt4 = spearmanr(data.gpt4_elo, data.majority_elo)[0]
    assert sim.majority_elo.shape == (5, data.n)
    assert np.all((sim.ceiling > 0) & (sim.ceiling <= 1))
    assert sim.ceiling.mean() > gpt4
    assert np.all((sim.agreement > 0.5) & (sim.agreement <= 1))
    # simulated raters agree with their majority less than the majority agrees with the truth
    assert sim.spearman.mean() < sim.ceiling.mean()


def test_judge_equal_to_the_latent_beats_a_noisy_one(ceiling, arts94):
    data, latent = arts94
    model = ceiling.Model("shared", latent, np.ones(len(data.raters)))
    sim = ceiling.simulate(model, data, reps=5, rng=np.random.default_rng(1))
    rng = np.random.default_rng(2)
    gpt = latent + 150.0 * rng.standard_normal(sim.majority_elo.shape)
    rows = ceiling.power_grid(latent, sim.majority_elo, [400.0, 0.0], gpt, n_boot=50, rng=rng)
    noisy, exact = rows
    assert exact["judge_spearman"] > noisy["judge_spearman"]
    assert exact["judge_spearman"] == pytest.approx(sim.ceiling.mean())
    assert exact["difference"] > noisy["difference"]
    assert exact["power"] >= noisy["power"]
    assert all(0.0 <= r["power"] <= 1.0 and r["goal_and_ci"] <= r["reach_goal"] for r in rows)
    # the same judges scored by the Elo of their decisions on the schedule
    elo_rows = ceiling.power_grid(latent, sim.majority_elo, [0.0], gpt, n_boot=50, rng=rng, schedule=(data.a, data.b))
    assert elo_rows[0]["judge_spearman"] == pytest.approx(sim.schedule_ceiling.mean())


def test_noise_for_target_and_power_interpolation(ceiling, arts94):
    data, latent = arts94
    z = np.random.default_rng(5).standard_normal((5, data.n))
    target = np.tile(latent, (5, 1))
    sd = ceiling.noise_for_target(latent, target, 0.8, z)
    assert sd > 0
    assert spearmanr(latent + sd * z[0], latent)[0] == pytest.approx(0.8, abs=0.06)
    assert ceiling.noise_for_target(latent, target, 1.0, z) == 0.0
    rows = [{"judge_spearman": 0.80, "power": 0.1}, {"judge_spearman": 0.90, "power": 0.9}]
    assert ceiling.spearman_for_power(rows, 0.5) == pytest.approx(0.85)
    assert ceiling.spearman_for_power(rows, 0.95) is None
    assert ceiling.power_at(rows, 0.85) == pytest.approx(0.5)


def test_leave_one_out_human(ceiling, arts94):
    data, _ = arts94
    loo, ties = ceiling.leave_one_out(data, seed=0)
    assert loo.shape == (len(data.raters),)
    assert ties == 0  # 15 raters who answered every match cannot tie
    assert np.all((loo > 0.5) & (loo < 1.0))


def test_calibrated_models_hit_their_targets(ceiling, arts94):
    data, latent = arts94
    slopes = ceiling.fit_rater_slopes(data.decisions, data.a, data.b, latent)
    observed = float(ceiling.overdispersion(data.decisions, data.a, data.b, latent))
    assert observed > 1.5  # real raters err consistently on a text
    model, info = ceiling.fit_rater_text_model(data, latent, slopes, observed, np.random.default_rng(0), reps=4)
    assert info["overdispersion"] == pytest.approx(observed, abs=0.05)
    assert info["spread"] == pytest.approx(1.0, abs=0.01)
    assert model.tau > 0 and info["kappa"] > 1.0  # own deviations flatten the pooled decisions
    sim = ceiling.simulate(model, data, reps=6, rng=np.random.default_rng(1))
    assert sim.overdispersion.mean() > 1.5
    tau, slope = ceiling.fit_pairwise_gpt(
        model.latent, sim.majority_elo, data, 0.8, 0.936, np.random.default_rng(2), reps=6
    )
    rng = np.random.default_rng(3)
    decisions = ceiling.pairwise_judge_decisions(
        model.latent, tau, slope, data.a, data.b, rng.standard_normal((6, data.n)), rng.random((2, 6, len(data.a)))
    )
    assert np.mean(decisions[0] == decisions[1]) == pytest.approx(0.936, abs=0.03)
    elo = np.array([ceiling.elo_ratings(x, data.a, data.b, data.n) for x in decisions[0]])
    assert np.mean([spearmanr(e, m)[0] for e, m in zip(elo, sim.majority_elo)]) == pytest.approx(0.8, abs=0.08)
