"""Import stubs for the AgentDojo reference (sequrity-ai/agentdojo 96046ab54): its package imports every LLM
client (openai, anthropic, cohere, google-genai, ...) at import time, none of which a ground-truth replay calls.
Every attribute of a stubbed module is an inert object that can be called, subscripted, used as a base class or a
decorator, so the package's module bodies run; nothing they define is used."""
import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = ("openai", "anthropic", "cohere", "google", "tenacity", "rich", "transformers", "langchain", "vertexai", "torch", "huggingface_hub")


class _Inert:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        # A decorator stub must hand back the decorated function, or a stubbed `@retry` would erase the method.
        if len(args) == 1 and callable(args[0]) and not kwargs and not isinstance(args[0], _Inert):
            return args[0]
        return _Inert()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()

    def __getitem__(self, key):
        return _Inert()

    def __or__(self, other):
        return _Inert()

    __ror__ = __or__

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (_InertBase,)


class _InertBase:
    def __init__(self, *args, **kwargs):
        pass


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install():
    sys.meta_path.insert(0, _Finder())
