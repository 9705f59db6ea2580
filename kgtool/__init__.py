"""kgtool: multi-hop question answering over edited and imperfect knowledge, inside Neo4j."""
from kgtool.errors import KgToolError

__version__ = "0.1.0"
__all__ = ["KnowledgeGraph", "KgToolError", "__version__"]


def __getattr__(name):
    # keep `import kgtool` cheap: the API (and the driver) load on first use
    if name == "KnowledgeGraph":
        from kgtool.api import KnowledgeGraph

        return KnowledgeGraph
    raise AttributeError(name)
