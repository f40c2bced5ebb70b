"""Keyword arguments to lsm's parameters, as the declarations say.

Every function of the package is rendered from a declaration (an operation's,
or lsm.Landscape's): its keywords are the parameters' names with '_' for '-'
(``edge_depth`` for ``--edge-depth``), its defaults and checks are the
declaration's, and the engine checks each value as the command line does, so a
bad value gets the command line's message, with the keyword's spelling.
"""
import difflib
import json
import keyword as python_keywords
import os
import re

from . import _lsm


def keyword(name):
    """The Python keyword of a parameter named ``name`` (edge-depth: edge_depth; from: from_)."""
    spelled = name.replace("-", "_")
    return spelled + "_" if python_keywords.iskeyword(spelled) else spelled


class Declaration:
    """One operation's (or lsm.Landscape's) parameters, from lsm's JSON."""

    def __init__(self, command, operation_name):
        self.operation_name = operation_name  # "" for lsm.Landscape
        # The command line's quiet switch: a Python caller's progress= decides instead.
        command = dict(command, parameters=[p for p in command["parameters"] if p["name"] != "quiet"])
        self.command = command
        self.parameters = {keyword(p["name"]): p for p in command["parameters"]}
        self.aliases = {}
        for p in command["parameters"]:
            for alias in p["aliases"]:
                self.aliases[keyword(alias)] = keyword(p["name"])

    def parameter(self, name):
        """The parameter a keyword names (or an older spelling), else None."""
        return self.parameters.get(self.aliases.get(name, name))

    def unknown_keyword(self, name, where):
        """TypeError for a keyword the declaration does not have, with the one meant."""
        meant = difflib.get_close_matches(name, list(self.parameters) + list(self.aliases), n=1, cutoff=0.75)
        hint = "; did you mean %s?" % meant[0] if meant else ""
        return TypeError("%s got an unexpected keyword argument '%s'%s" % (where, name, hint))

    def texts(self, name, value):
        """The (parameter, text) pairs that give parameter ``name`` the Python value ``value``."""
        p = self.parameter(name)
        spelled = p["name"]
        if value is None:
            return []
        if p["type"] == "flag":
            if not isinstance(value, bool):
                raise TypeError("%s is a flag: give True or False, not %r" % (name, value))
            return [(spelled, "yes")] if value else []
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if isinstance(value, (list, tuple)) and p["list"]:
            return [(spelled, ",".join(text_of(name, v) for v in value))]
        if isinstance(value, (list, tuple)) and p["multiple"]:
            return [(spelled, text_of(name, v)) for v in value]
        return [(spelled, text_of(name, value))]

    def check(self, pairs):
        """Checks (parameter, text) pairs as a run would, raising the engine's error."""
        with python_spelling(self):
            _lsm.check_values(self.operation_name, pairs)


def text_of(name, value):
    """A single value as the engine's text."""
    if isinstance(value, bool):
        raise TypeError("%s takes no True or False" % name)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (str, int, float)):
        return str(value)
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # a numpy scalar
        return str(value.item())
    raise TypeError("%s takes a number or a text, not %s" % (name, type(value).__name__))


class python_spelling:
    """Rewrites the engine's option names in its messages (--edge-depth) as keywords (edge_depth)."""

    def __init__(self, declaration):
        self.names = sorted((p["name"] for p in declaration.command["parameters"]), key=len, reverse=True)

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if type(error) not in (ValueError, OSError):
            return False
        text = str(error)
        for name in self.names:
            text = re.sub(r"--%s\b" % re.escape(name), keyword(name), text)
        if text != str(error):
            raise type(error)(text) from None
        return False


_cache = {}


def operations():
    """Every operation's declaration (lsm --describe), by name."""
    if "operations" not in _cache:
        document = json.loads(_lsm.describe())
        _cache["operations"] = {c["name"]: Declaration(c, c["name"]) for c in document["commands"]}
        _cache["catalogue"] = document["metric_catalogue"]
    return _cache["operations"]


def metric_catalogue():
    """The metric catalogue: acronym, name, family, levels, unit of every metric."""
    operations()
    return _cache["catalogue"]


def landscape():
    """lsm.Landscape's declaration."""
    if "landscape" not in _cache:
        _cache["landscape"] = Declaration(json.loads(_lsm.landscape_declaration())["commands"][0], "")
    return _cache["landscape"]


def described(p):
    """One line of a docstring for parameter ``p``: type, default, unit, help, choices."""
    kind = {"integer": "int", "number": "float", "string": "str", "flag": "bool"}[p["type"]]
    if p["input"]:
        kind = "path, numpy array or dataset" if p["input"] == "raster" else "path"
    if p["multiple"]:
        kind += " or list"
    parts = [p["help"] + (" (%s)" % p["unit"] if p["unit"] else "")]
    if p["choices"] and p["choice_labels"] and not p["list"]:
        parts.append("; ".join("%s: %s" % (c, l) for c, l in zip(p["choices"], p["choice_labels"])))
    elif p["choices"] and not p["list"]:
        parts.append("one of " + ", ".join(str(c) for c in p["choices"]))
    if p["default"] not in (None, False):
        parts.append("default %r" % (p["default"],))
    return "%s : %s\n    %s" % (keyword(p["name"]), kind, ". ".join(parts))
