from __future__ import annotations

from pathlib import Path

from reasonix_acp import config


def write(tmp: Path, text: str) -> dict[str, str]:
    (tmp / "config.toml").write_text(text, encoding="utf-8")
    return {"REASONIX_ACP_CONFIG_DIR": str(tmp)}


def test_precedence_and_providers(tmp_path: Path) -> None:
    env = write(
        tmp_path,
        'default_model = "deepseek/deepseek-reasoner"\n[providers.deepseek]\napi_key = "sk-file"\n',
    )
    cfg = config.load(env=env)
    assert cfg.default_model == "deepseek/deepseek-reasoner"
    assert cfg.model_ids() == ["deepseek/deepseek-chat", "deepseek/deepseek-reasoner"]
    assert cfg.efforts_for("deepseek/deepseek-chat") == ["auto", "high", "max"]
    env_cfg = config.load(
        env={
            **env,
            "ACP_MODEL": "openai/llama3",
            "OPENAI_API_KEY": "k",
            "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        }
    )
    assert env_cfg.default_model == "openai/llama3" and env_cfg.providers["openai"].models == [
        "llama3"
    ]
    assert (
        config.load(cli_model="offline", env={**env, "ACP_MODEL": "openai/x"}).default_model
        == "offline/default"
    )


def test_nothing_configured_has_no_model(tmp_path: Path) -> None:
    assert config.load(env={"REASONIX_ACP_CONFIG_DIR": str(tmp_path)}).default_model is None


def test_limits(tmp_path: Path) -> None:
    cfg = config.load(
        env=write(tmp_path, "max_steps = 3\n[budgets]\ntask_seconds = 1.5\ntask_tokens = 99\n")
    )
    assert (cfg.max_steps, cfg.budget_seconds, cfg.budget_tokens) == (3, 1.5, 99)


def test_logout_removes_every_key_and_nothing_else(tmp_path: Path) -> None:
    env = write(
        tmp_path,
        'default_model = "openai/m"\n[providers.openai]\nbase_url = "http://x"\napi_key = "sk-1"\n[providers.deepseek]\napi_key = "sk-2"\n',
    )
    cfg = config.load(env=env)
    assert sorted(config.clear_credentials(cfg)) == ["deepseek", "openai"]
    text = (tmp_path / "config.toml").read_text(encoding="utf-8")
    assert (
        "sk-" not in text
        and 'base_url = "http://x"' in text
        and 'default_model = "openai/m"' in text
    )
    assert cfg.providers["openai"].api_key == ""


def test_a_broken_file_is_ignored_with_a_warning(tmp_path: Path, caplog: object) -> None:
    cfg = config.load(env=write(tmp_path, "this is = = not toml"))
    assert cfg.providers == {}


def test_prices_give_a_cost(tmp_path: Path) -> None:
    cfg = config.load(
        env=write(
            tmp_path,
            '[providers.openai]\nbase_url = "http://x"\nmodels = ["m"]\nprices = {input = 2.0, output = 8.0, cache_hit = 0.5, currency = "EUR"}\n[budgets]\ntask_cost = 0.01\n',
        )
    )
    provider = cfg.providers["openai"]
    assert provider.cost(1_000_000, 0, 500_000) == 0.5 * 0.5 + 0.5 * 2.0
    assert provider.cost(0, 1_000, 0) == 0.008
    assert provider.currency == "EUR" and cfg.budget_cost == 0.01
    assert config.ProviderConfig("x", "openai").cost(10, 10, 0) is None
