#!/usr/bin/env python3
"""Write resources/engine-flags/*.json from the engines' own argument parsers, read statically from source.

    python3 scripts/flag-tables/extract_flags.py --src /work/engine-src            # write the tables
    python3 scripts/flag-tables/extract_flags.py --src /work/engine-src --check    # fail if they would change
    python3 scripts/flag-tables/extract_flags.py --src /work/engine-src --changes  # flags that come and go

The source trees are listed in sources.json (next to this file) with the commit each was read at; see README.md.
Python 3.11, standard library only: the engines are never imported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import engine_sglang  # noqa: E402
import engine_trtllm  # noqa: E402
import engine_vllm  # noqa: E402
import library_messages  # noqa: E402
import tables  # noqa: E402
from static_eval import ExtractError  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO_ROOT, "resources", "engine-flags")

ARITY_LEGEND = {
    "none": "takes no value (store_true / store_false / store_const, click is_flag)",
    "negatable": "takes no value; every --x also has --no-x (argparse.BooleanOptionalAction, click '--x/--no-x')",
    "one": "exactly one value ('--x v' or '--x=v')",
    "optional": "zero or one value (nargs='?')",
    "many": "one or more values (nargs='+')",
    "zero-or-more": "zero or more values (nargs='*')",
    "repeatable": "one value per occurrence, may be repeated (action='append')",
    "fixed": "exactly `count` values (nargs=N with N > 1)",
}


# --------------------------------------------------------------------------------------------------------------
# Python's argparse and click messages, read from the installed sources (they are not part of the engines)
# --------------------------------------------------------------------------------------------------------------


def stdlib_argparse_messages() -> dict[str, str]:
    return {k: library_messages.ARGPARSE[k] for k in ("unrecognized", "ambiguous", "invalid_choice")}


# --------------------------------------------------------------------------------------------------------------
# Per-engine runs
# --------------------------------------------------------------------------------------------------------------


def _check_commit(src_dir: str, entry: dict[str, Any]) -> None:
    commit_file = os.path.join(src_dir, "COMMIT")
    if os.path.exists(commit_file):
        with open(commit_file, encoding="utf-8") as fh:
            got = fh.read().strip()
        if got != entry["commit"]:
            raise ExtractError(f"{src_dir}/COMMIT is {got}, sources.json says {entry['commit']}")


def run_argparse_engine(src: str, engine_dir: str, versions: list[dict[str, Any]],
                        collect: Callable[[str], list[Any]], extra: list[tables.Variant] | None = None
                        ) -> dict[str, list[tables.Variant]]:
    per_version: dict[str, list[tables.Variant]] = {}
    for entry in versions:
        root = os.path.join(src, engine_dir, entry["version"])
        if not os.path.isdir(root):
            raise ExtractError(f"missing source tree {root}")
        _check_commit(root, entry)
        calls = collect(root)
        NOTES.setdefault(entry["version"], []).extend(n for n in getattr(calls, "notes", []) if n not in
                                                     NOTES.get(entry["version"], []))
        variants = [v for v in (tables.classify_argparse(c) for c in calls) if v is not None]
        variants += list(extra or [])
        tables.check_unique(variants, entry["version"])
        per_version[entry["version"]] = variants
    return per_version


HELP = tables.Variant(("-h", "--help"), "none", None)
NOTES: dict[str, list[str]] = {}


def version_header(entry: dict[str, Any], read_from: str, parser: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"version": entry["version"], "commit": entry["commit"], "ref": entry["ref"],
                           "read_from": read_from}
    if "date" in entry:
        out["commit_date"] = entry["date"]
    if "branch_point" in entry:
        out["branch_point"] = entry["branch_point"]
    if "exact" in entry:
        out["exact"] = entry["exact"]
    if "files" in entry:
        out["files"] = entry["files"]
    if "snapshot" in entry:
        out["snapshot"] = entry["snapshot"]
    if "note" in entry:
        out["note"] = entry["note"]
    if parser is not None:
        out["parser"] = parser
    if NOTES.get(entry["version"]):
        out["source_conditions"] = NOTES[entry["version"]]
    return out


def build_vllm(src: str, manifest: dict[str, Any], msgs: dict[str, str]) -> dict[str, tuple[dict, dict]]:
    m = manifest["vllm"]
    serve = run_argparse_engine(src, "vllm", m["versions"], engine_vllm.serve_calls, [HELP])
    bench = run_argparse_engine(src, "vllm", m["versions"], engine_vllm.bench_serve_calls, [HELP])
    vheaders = []
    for e in m["versions"]:
        facts = engine_vllm.parser_facts(os.path.join(src, "vllm", e["version"]), msgs)
        vheaders.append(version_header(e, m["read_from"], facts))
    common = {
        "arity": ARITY_LEGEND,
        "notes": [
            "Flags come from running the parser-building code statically: vllm/entrypoints/cli/serve.py "
            "ServeSubcommand.subparser_init -> vllm/entrypoints/openai/cli_args.py make_arg_parser -> FrontendArgs."
            "add_cli_args + AsyncEngineArgs.add_cli_args -> EngineArgs.add_cli_args (vllm/engine/arg_utils.py), with "
            "get_kwargs(ConfigClass) evaluated from the config dataclasses' type hints at that release.",
            "`json: true` marks a flag whose value is parsed as JSON (a config dataclass, json.loads, or "
            "union_dict_and_str); FlexibleArgumentParser also accepts its keys one by one as --flag.key value.",
            "`choices` are the strings argparse accepts (for int-typed choices such as --block-size the value is "
            "converted with int() first). A choice list that ends in 'None' comes from an Optional[Literal[...]] "
            "field: get_kwargs appends the string 'None', but optional_type() turns the argument 'None' into None "
            "before argparse checks it against the list, so '--x None' is refused as an invalid choice.",
            "A flag whose type allows any string beside the literal values (e.g. Literal[...] | str) shows no "
            "choices: vLLM then uses a metavar, not choices, and the value is checked later, if at all.",
            "The positional model tag (`vllm serve <model>`) is not listed.",
        ],
    }
    serve_doc = {"engine": "vllm", "command": "vllm serve", **common, "versions": vheaders}
    bench_doc = {"engine": "vllm", "command": "vllm bench serve",
                 **{**common, "notes": [
                     "Flags come from vllm/entrypoints/cli/benchmark/serve.py BenchmarkServingSubcommand.add_cli_args"
                     " -> vllm/benchmarks/serve.py add_cli_args (which first calls vllm/benchmarks/datasets.py "
                     "add_dataset_parser). The bench subparser is a FlexibleArgumentParser too, so the parser notes "
                     "of `vllm serve` apply.",
                     common["notes"][2]]},
                 "versions": vheaders}
    return {"vllm": (serve_doc, serve), "vllm-bench": (bench_doc, bench)}


def build_sglang(src: str, manifest: dict[str, Any], msgs: dict[str, str]) -> dict[str, tuple[dict, dict]]:
    m = manifest["sglang"]
    per = run_argparse_engine(src, "sglang", m["versions"], engine_sglang.serve_calls, [HELP])
    vheaders = []
    for e in m["versions"]:
        facts = engine_sglang.parser_facts(os.path.join(src, "sglang", e["version"]), msgs)
        vheaders.append(version_header(e, m["read_from"], facts))
    doc = {
        "engine": "sglang",
        "command": "python -m sglang.launch_server (and `sglang serve` for language models)",
        "arity": ARITY_LEGEND,
        "notes": [
            "Flags come from ServerArgs.add_cli_args in python/sglang/srt/server_args.py run statically on a plain "
            "argparse.ArgumentParser (prepare_server_args). From 0.5.14 most flags are derived by "
            "add_cli_args_from_dataclass (python/sglang/srt/arg_groups/arg_utils.py) from Annotated[..., Arg(...)] "
            "fields of ServerArgs; that function is emulated as read at each release.",
            "Choice lists are evaluated from the module-level constants and registries the parser reads at import "
            "time (e.g. ATTENTION_BACKEND_CHOICES, ReasoningParser.DetectorMap). Plugins can extend some of them at "
            "runtime (add_*_choices helpers); those additions are not included.",
            "0.5.0 has no final release: its three release candidates are listed.",
            "`refused` marks an option that is registered but whose action stops the parse with parser.error(<the "
            "message shown>) (DeprecatedAction with error_message), so using it fails like an unknown flag.",
            "`source_conditions` (per version) lists module-level code that only runs under an environment "
            "variable or platform check; the table assumes the default environment.",
        ],
        "versions": vheaders,
    }
    return {"sglang": (doc, per)}


def build_trtllm(src: str, manifest: dict[str, Any], click_msgs: dict[str, str]) -> dict[str, tuple[dict, Any]]:
    out: dict[str, tuple[dict, Any]] = {}
    m = manifest["trtllm"]
    per: dict[str, list[tables.Variant]] = {}
    vheaders = []
    for e in m["versions"]:
        root = os.path.join(src, "trtllm", e.get("snapshot", e["version"]))
        variants, facts = engine_trtllm.serve_variants(root)
        tables.check_unique(variants, e["version"])
        per[e["version"]] = variants
        parser = {
            "parser_class": "click (a click.Group subclass `DefaultGroup` holding the `serve` click.Command)",
            "command_resolution": facts["command"],
            "underscore_dash": "no: click matches option names exactly; trtllm-serve registers them with '_' "
                               "(--max_batch_size), so --max-batch-size is refused",
            "allow_abbrev": [False, "click has no prefix matching for long options (OptionParser._match_long_opt "
                                    "raises NoSuchOption unless the name is registered)"],
            "equals_value": True,
            "unknown_flag_error": click_msgs,
            "unresolved_choices": facts["unresolved_choices"],
        }
        vheaders.append(version_header(e, m["read_from"], parser))
    doc = {
        "engine": "trtllm",
        "command": "trtllm-serve serve (what `trtllm-serve <model> ...` runs)",
        "arity": ARITY_LEGEND,
        "notes": [
            "Options are the @click.option decorators of the `serve` command in tensorrt_llm/commands/serve.py.",
            "No release tag of TensorRT-LLM could be read here; see each version's `exact` and `note`.",
            "`choices` of --backend include the alias 'trt' (ChoiceWithAlias maps it to 'tensorrt').",
        ],
        "versions": vheaders,
    }
    doc["_unresolved"] = sorted({n for v in vheaders for n in v["parser"]["unresolved_choices"]})
    out["trtllm"] = (doc, per)

    m2 = manifest["trtllm-llm-api"]
    keys_per: dict[str, list[dict[str, Any]]] = {}
    vheaders2 = []
    for e in m2["versions"]:
        root = os.path.join(src, "trtllm", e.get("snapshot", e["version"]))
        keys_per[e["version"]] = engine_trtllm.llm_api_keys(root)
        vheaders2.append(version_header(e, m2["read_from"], {
            "loader": "trtllm-serve reads the file with yaml.safe_load and merges it over the CLI-derived arguments "
                      "with update_llm_args_with_extra_dict (llm_args.py): YAML keys win over CLI flags",
            "unknown_key": "BaseLlmArgs.model_config sets extra='forbid' (and StrictBaseModel's Config.extra = "
                           "'forbid'), so pydantic rejects an unknown key (error type extra_forbidden, 'Extra inputs "
                           "are not permitted')",
        }))
    doc2 = {
        "engine": "trtllm",
        "command": "trtllm-serve --extra_llm_api_options <yaml> (top-level keys)",
        "notes": [
            "Keys are the pydantic fields of TorchLlmArgs (the PyTorch backend's LLM args) and of its base "
            "BaseLlmArgs in tensorrt_llm/llmapi/llm_args.py. `type` is the annotation as written; `type_doc` the "
            "json_schema_extra type the docs show; `status` the Field(status=...) label (absent = stable).",
            "Fields hidden by a @property of the same name (TorchLlmArgs.quant_config) are left out.",
        ],
        "versions": vheaders2,
    }
    out["trtllm-llm-api"] = (doc2, keys_per)
    return out


def click_messages() -> dict[str, str]:
    return dict(library_messages.CLICK)


# --------------------------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------------------------


def llm_api_merge(per_version: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    by: dict[str, dict[str, Any]] = {}
    for ver in per_version:
        for e in per_version[ver]:
            key = json.dumps({k: v for k, v in e.items() if k != "where"}, sort_keys=True)
            slot = by.setdefault(key, {**{k: v for k, v in e.items() if k != "where"}, "versions": [],
                                       "where": e["where"]})
            slot["versions"].append(ver)
    out = list(by.values())
    out.sort(key=lambda e: (e["names"][0], json.dumps(e, sort_keys=True)))
    return out


def render(docs: dict[str, tuple[dict, Any]]) -> dict[str, str]:
    rendered: dict[str, str] = {}
    for name, (header, per) in docs.items():
        flags = llm_api_merge(per) if name == "trtllm-llm-api" else tables.merge(per)
        doc = dict(header)
        unresolved = set(doc.pop("_unresolved", []))
        for f in flags:
            if f["names"][0] in unresolved:
                f["choices_unresolved"] = True  # the parser restricts the values, to a list not read here
        doc["flags"] = flags
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        rendered[name] = tables._compact_lists(text)
    return rendered


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="directory holding <engine>/<version>/ source trees")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: resources/engine-flags)")
    ap.add_argument("--only", default="vllm,sglang,trtllm", help="comma-separated engines")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    ap.add_argument("--changes", action="store_true", help="print flags added/removed/changed between versions")
    args = ap.parse_args(argv)

    with open(os.path.join(HERE, "sources.json"), encoding="utf-8") as fh:
        manifest = json.load(fh)
    msgs = stdlib_argparse_messages()
    only = set(args.only.split(","))
    docs: dict[str, tuple[dict, Any]] = {}
    if "vllm" in only:
        docs.update(build_vllm(args.src, manifest, msgs))
    if "sglang" in only:
        docs.update(build_sglang(args.src, manifest, msgs))
    if "trtllm" in only:
        docs.update(build_trtllm(args.src, manifest, click_messages()))

    if args.changes:
        for name, (_, per) in docs.items():
            if name == "trtllm-llm-api":
                continue
            print(f"== {name}")
            for line in tables.diff_examples(per):
                print("  " + line)

    rendered = render(docs)
    status = 0
    os.makedirs(args.out, exist_ok=True)
    for name, text in rendered.items():
        path = os.path.join(args.out, f"{name}.json")
        if args.check:
            current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if current != text:
                print(f"{path}: would change", file=sys.stderr)
                status = 1
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            print(f"wrote {os.path.relpath(path, REPO_ROOT)} ({text.count(chr(10))} lines)")
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ExtractError as e:
        print(f"extract_flags: {e}", file=sys.stderr)
        sys.exit(2)
