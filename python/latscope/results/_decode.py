"""Reading a result document (the dict of its JSON) into the generated classes: the
field names and types come from each dataclass, so no code names a JSON key by hand
(the keys are the Rust types' own, through docs/*.schema.json and
scripts/gen-python-results.py)."""

import dataclasses
import sys
import typing
from typing import Any, Dict, Tuple, Type, TypeVar

from ..errors import InputError

T = TypeVar("T", bound="Doc")

_NoneType = type(None)
# The field metadata entry that holds a JSON key the Python name cannot spell (`pass`).
JSON_KEY = "json"


class Doc:
    """Base of every generated result class."""

    # Set by the reader (not a dataclass field: Doc is not a dataclass).
    _source: Dict[str, Any]

    def as_json(self) -> Dict[str, Any]:
        """The JSON object this value was read from, in the file's key order and with
        keys the schema does not name (the same object: do not change it)."""
        return self._source


_FIELDS: Dict[type, Tuple[Tuple[str, str, Any, bool], ...]] = {}


def _fields(cls: type) -> Tuple[Tuple[str, str, Any, bool], ...]:
    """(attribute, JSON key, type, required) of each field of a generated class."""
    got = _FIELDS.get(cls)
    if got is None:
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        got = tuple(
            (
                f.name,
                f.metadata.get(JSON_KEY, f.name),
                hints[f.name],
                f.default is dataclasses.MISSING,
            )
            for f in dataclasses.fields(cls)
        )
        _FIELDS[cls] = got
    return got


def _what(v: Any) -> str:
    return "null" if v is None else type(v).__name__


def _value(tp: Any, v: Any, where: str) -> Any:
    if tp is Any:
        return v
    origin = typing.get_origin(tp)
    if origin is typing.Union:
        if v is None and _NoneType in typing.get_args(tp):
            return None
        inner = [a for a in typing.get_args(tp) if a is not _NoneType]
        return _value(inner[0] if len(inner) == 1 else Any, v, where)
    if origin is list:
        if not isinstance(v, list):
            raise InputError(f"{where}: expected a list, got {_what(v)}")
        (item,) = typing.get_args(tp)
        return [_value(item, x, f"{where}[{i}]") for i, x in enumerate(v)]
    if origin is dict:
        if not isinstance(v, dict):
            raise InputError(f"{where}: expected an object, got {_what(v)}")
        _, item = typing.get_args(tp)
        return {k: _value(item, x, f"{where}.{k}") for k, x in v.items()}
    if isinstance(tp, type) and issubclass(tp, Doc):
        return _object(tp, v, where)
    ok = {
        int: lambda x: isinstance(x, int) and not isinstance(x, bool),
        float: lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
        str: lambda x: isinstance(x, str),
        bool: lambda x: isinstance(x, bool),
    }[tp]
    if not ok(v):
        raise InputError(f"{where}: expected {tp.__name__}, got {_what(v)}")
    return v


def _object(cls: Type[T], v: Any, where: str) -> T:
    if not isinstance(v, dict):
        raise InputError(f"{where or 'the document'}: expected an object, got {_what(v)}")
    args = {}
    for name, key, tp, required in _fields(cls):
        at = f"{where}.{key}" if where else key
        if key in v:
            args[name] = _value(tp, v[key], at)
        elif required:
            raise InputError(f"{at}: missing")
    out = cls(**args)
    object.__setattr__(out, "_source", v)
    return out


def decode(cls: Type[T], value: Any) -> T:
    """``value`` (a parsed JSON object) as ``cls``; InputError names the first field that
    does not fit (e.g. ``measurements[2].max_ns: expected float, got str``)."""
    return _object(cls, value, "")
