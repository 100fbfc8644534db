from __future__ import annotations

from pathlib import Path

from reasonix_acp import config


def write(tmp: Path, text: str) -> dict[str, str]:
    (tmp / "config.toml").write_text(text, encoding="utf-8")
    return {"REASONIX_ACP_CONFIG_DIR": str(tmp)}


def test_precedence_and_providers(tmp_path: Path) -> None:
    env = write(
        tmp_path,
        'default_model = "deepseek/deepseek-v4-pro"\n[providers.deepseek]\napi_key = "sk-file"\n',
    )
    cfg = config.load(env=env)
    assert cfg.default_model == "deepseek/deepseek-v4-pro"
    assert cfg.model_ids() == ["deepseek/deepseek-flash", "deepseek/deepseek-v4-pro"]
    assert cfg.efforts_for("deepseek/deepseek-flash") == ["off", "low", "high", "max"]
    assert cfg.default_effort("deepseek/deepseek-flash") == "high"
    assert cfg.takes_images("deepseek/deepseek-flash")
    assert not cfg.takes_images("deepseek/deepseek-v4-pro")
    assert cfg.window("deepseek/deepseek-v4-pro") == (1_048_576, "published")
    assert cfg.providers["deepseek"].builtin  # until the endpoint lists its models
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


def test_a_retired_deepseek_model_runs_on_its_successor(tmp_path: Path) -> None:
    """deepseek-chat and deepseek-reasoner were retired (the API answers 400 Model Not Exist):
    named as the default or among a provider's models, each is deepseek-flash, and the config
    remembers what it renamed so the session and `acp doctor` can say so."""
    env = write(
        tmp_path,
        'default_model = "deepseek/deepseek-chat"\n[providers.deepseek]\napi_key = "k"\n'
        'models = ["deepseek-chat", "deepseek-reasoner", "deepseek-v4-pro"]\n',
    )
    cfg = config.load(env=env)
    assert cfg.default_model == "deepseek/deepseek-flash"
    assert cfg.retired_default == "deepseek/deepseek-chat"
    assert cfg.model_ids() == ["deepseek/deepseek-flash", "deepseek/deepseek-v4-pro"]
    assert cfg.renamed == {
        "deepseek/deepseek-chat": "deepseek/deepseek-flash",
        "deepseek/deepseek-reasoner": "deepseek/deepseek-flash",
    }
    assert cfg.retired("deepseek/deepseek-reasoner") == "deepseek/deepseek-flash"
    assert cfg.retired("deepseek/deepseek-v4-pro") is None
    # An OpenAI-kind provider pointed at DeepSeek's API speaks its dialect too.
    other = config.load(
        env={
            "REASONIX_ACP_CONFIG_DIR": str(tmp_path / "none"),
            "OPENAI_BASE_URL": "https://api.deepseek.com",
            "OPENAI_API_KEY": "k",
            "OPENAI_MODEL": "deepseek-chat",
        }
    )
    assert other.providers["openai"].dialect == "deepseek"
    assert other.default_model == "openai/deepseek-flash"
