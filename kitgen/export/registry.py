"""Every exporter kitgen has, in the order their files are made. Adding one is a module with an `EXPORTER`
(see `kitgen.export.exporter`) and one line here."""
from __future__ import annotations

from kitgen.core.files import OutputFile
from kitgen.export import cricut, cutfile, png
from kitgen.export.exporter import Exporter
from kitgen.plan.options import BuildOptions, ResolvedOptions

EXPORTERS: tuple[Exporter, ...] = (
    png.EXPORTER,
    cutfile.EXPORTER,
    cricut.EXPORTER,
)


def artefacts(files: list[OutputFile], resolved: ResolvedOptions, options: BuildOptions) -> dict[str, bytes]:
    """The files every exporter these options ask for makes from the rendered kit, by name in the kit folder."""
    made: dict[str, bytes] = {}
    for exporter in EXPORTERS:
        if exporter.wanted(options):
            for name, data in exporter.export(files, resolved, options).items():
                if name in made:
                    raise ValueError(f"exporters {exporter.name!r} and another both make {name!r}")
                made[name] = data
    return made
