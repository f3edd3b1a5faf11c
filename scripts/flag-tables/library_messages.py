"""Refusal messages of the parsing libraries the engines use (not part of the engines' own source).

Read once from the library sources on this machine and kept here, so the tables do not depend on which Python or
click happens to run the extractor.  The engines do not override these messages (vLLM's FlexibleArgumentParser
and SGLang's prepare_server_args never define error()).
"""

ARGPARSE = {
    "source": "CPython 3.11.7 Lib/argparse.py (the same strings are in /usr/lib/python3.11/argparse.py, 3.11.2)",
    "format": "%(prog)s: error: %(message)s\\n  [Lib/argparse.py:2630, ArgumentParser.error, after print_usage]",
    "unrecognized": "unrecognized arguments: %s  [Lib/argparse.py:1871, ArgumentParser.parse_args; the unknown "
                    "arguments joined with spaces]",
    "ambiguous": "ambiguous option: %(option)s could match %(matches)s  [Lib/argparse.py:2263, _parse_optional, "
                 "only when allow_abbrev is on]",
    "invalid_choice": "argument %(argument_name)s: invalid choice: %(value)r (choose from %(choices)s)  "
                      "[Lib/argparse.py:2552, _check_value; choices joined with ', ' after repr()]",
    "missing_value": "argument %(argument_name)s: expected one argument  [Lib/argparse.py:2199, _match_argument]",
}

CLICK = {
    "note": "The click version trtllm-serve runs with is whatever the environment installed; the wording changed "
            "between click 8.1 and 8.4.",
    "click 8.1.3": "No such option: {name}  [click/exceptions.py:211 of Debian bookworm python3-click 8.1.3-2]; "
                   "then ' Did you mean {possibility}?' or ' (Possible options: {possibilities})' when close "
                   "matches exist [click/exceptions.py:223-224]",
    "click 8.4.0": "No such option {name!r}.  [click/exceptions.py:235 of click 8.4.0]; then 'Did you mean "
                   "{possibility}?' or '(Did you mean one of: {possibilities}?)' [click/exceptions.py:29-30]",
    "shape": "Usage: <command path> [OPTIONS] MODEL / Try '<command path> --help' for help. / (blank) / "
             "Error: <message>  (click UsageError.show), exit status 2",
}


def argparse_line(prog: str, key: str) -> str:
    """The full stderr line argparse prints for `key`, with <prog> filled in."""
    body = ARGPARSE[key].split("  [")[0]
    return f"{prog}: error: {body}   ({ARGPARSE[key].split('  [', 1)[1].rstrip(']')}; {ARGPARSE['source']})"
