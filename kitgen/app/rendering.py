"""The heavy half of a build: one edition loaded, checked, planned and rendered in memory, then written.

`kitgen.app.build` reaches this module at one start-up seam (`build.rendering_stage`), so a kit that is up to date
is told so without the content model (pydantic), Jinja or ReportLab, which arrive here.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kitgen.check.content import check_activity, content_strings
from kitgen.core.display import Document
from kitgen.core.choices import Font
from kitgen.core.errors import ContentError, display_path, PlanError, Problem, UnprintableContent
from kitgen.core.files import BuildResult, kit_folder_name, OutputFile
from kitgen.core.notes import Note, NoteKind
from kitgen.export.pdf import write_pdf
from kitgen.core.style import LibraryFont
from kitgen.export.registry import artefacts
from kitgen.fonts.library import FontProblem, library_font
from kitgen.load import LoadedActivity, load_activity
from kitgen.load.library import Library
from kitgen.load.source import dotted
from kitgen.locale import library_locale, missing_catalog, missing_strings, translations
from kitgen.plan.kit import KitPlan, plan_kit
from kitgen.plan.options import BuildOptions, ResolvedOptions
from kitgen.render.kit import card_pictures, KitRenderer, root_templates
from kitgen.render.leaks import host_secrets, leak_problems
from kitgen.render.markup import environment
from kitgen.render.quality import collecting, gathering, layout_notes, located, unprintable_problems
from kitgen.write.fresh import input_record, templates_used
from kitgen.write.kitdir import write_outputs


def load_edition(activity_id: str, path: Path, language: str | None) -> LoadedActivity:
    """Load one edition and make sure its id is the one its file name promises."""
    loaded = load_activity(path, language, gather=True)  # a sheet's problems come with the checks'
    if loaded.activity.id != activity_id:
        raise ContentError([*loaded.problems, loaded.source.problem(
            ("id",), f"id: {loaded.activity.id!r} does not match the file name, expected {activity_id!r}")])
    return loaded


def edition_problems(activity_id: str, path: Path, language: str, library: Library, options: BuildOptions, *,
                     several_editions: bool = False) -> list[Problem]:
    """Every problem that would stop the build of one edition, found by rendering it in memory."""
    try:
        loaded = load_edition(activity_id, path, language)
    except ContentError as error:
        return error.problems
    problem = missing_catalog(loaded.activity.language, library_locale(library.content))
    if problem:  # nothing renders without the catalog
        return [loaded.source.problem(("language",), problem)]
    try:
        render_kit(loaded, options, library, several_editions=several_editions, pdf=False, every_problem=True)
    except ContentError as error:
        return error.problems
    return []


def _content_field_holding(loaded: LoadedActivity, char: str) -> str | None:
    """`file:line:column: path` of the first content string that holds `char` (for errors about printed text)."""

    for loc, text in content_strings(loaded.activity):
        if char in text:
            return str(loaded.source.problem(loc, dotted(loc)))
    return None


def _at_cells(loaded: LoadedActivity, text: str) -> str:
    """Each `file:line:column: ...` line of a render-stage error about a value read from a spreadsheet, named by
    its cell instead (`animals.xlsx, sheet Animals, G4 (column 'text'): ...`)."""
    lines = [(Problem.parse(line), line) for line in text.split("\n")]
    return "\n".join(str(loaded.source.at_cell(found)) if found else line for found, line in lines)


@dataclass
class RenderedKit:
    """A kit rendered in memory: every file with its display list and PDF, and the manifest's record."""

    folder: Path
    files: list[OutputFile]
    record: dict[str, Any]  # the manifest's, as JSON
    resolved: ResolvedOptions  # the options it was rendered with

    @property
    def notes(self) -> list[Note]:
        """The kit's quality notes."""
        return [Note.from_json(n) for n in self.record["quality"]]

    def result(self) -> BuildResult:
        files = [replace(f, path=self.folder / f.name) for f in self.files]
        return BuildResult(self.record["activity"], self.record["language"], self.folder, files,
                           quality=self.notes, summary=self.record["summary"])


def _plan(loaded: LoadedActivity, resolved: ResolvedOptions, size_from_content: bool) -> KitPlan:
    """The kit's plan; a size from the content that cannot fit the paper is a located content error."""

    try:
        return plan_kit(loaded.activity, resolved.paper, resolved.card, resolved.kits, resolved.sheet,
                        narrow_mats=not resolved.style.large_print)
    except PlanError as error:
        loc = error.loc or (("card_size",) if size_from_content else None)
        if loc is None:
            raise
        raise ContentError([loaded.source.problem(loc, f"{dotted(loc)}: {error}")]) from None


def _library_font(loaded: LoadedActivity, options: BuildOptions, library: Library) -> LibraryFont | None:
    """The family of the library's fonts/ folder that the activity's `font` names (unless `--font` picks a
    bundled one); a name not there, or a file that cannot be embedded, is a content error at `font:`."""
    name = loaded.activity.font
    if options.font or name is None or name in (Font.STANDARD, Font.LEGIBLE):
        return None
    try:
        return library_font(library.fonts_folder, name)
    except FontProblem as problem:
        raise ContentError([loaded.source.problem(("font",), f"font: {problem}")]) from None


def _font_notes(font: Font | LibraryFont, loaded: LoadedActivity) -> list[Note]:
    """A library font with no licence file beside it: the adult is asked to check it may be printed."""
    if not isinstance(font, LibraryFont) or font.licence is not None:
        return []
    where = str(loaded.source.problem(("font",), "font"))
    return [Note(NoteKind.FONT_LICENCE, where=where, what=f"the font {font.name!r} ({display_path(font.regular)}) has no licence "
                                        "file beside it (such as OFL.txt): check that its licence lets you print "
                                        "it and share the PDFs, and put the licence text in the fonts folder")]


def _font_files_to_come(font: LibraryFont | None) -> tuple[Path, ...]:
    """Files a library font does not have yet whose arrival changes the kit: a bold file, a licence."""
    if font is None:
        return ()
    folder = font.regular.parent
    bold = () if font.bold else (folder / f"{font.name}-Bold.ttf",)
    licences = () if font.licence else tuple(folder / name for name in (
        "OFL.txt", "LICENSE.txt", "LICENCE.txt", "LICENSE", f"{font.name}-OFL.txt"))
    return bold + licences


def _drawn(file: OutputFile) -> Document:
    """What render drew for `file` (every file a render makes has its drawing)."""
    assert file.document is not None, file.name
    return file.document


def _untranslated_note(language: str, untranslated: list[str]) -> Note:
    shown = "; ".join(repr(text[:40] + ("…" if len(text) > 40 else "")) for text in untranslated[:3])
    return Note(NoteKind.UNTRANSLATED,
                f"{len(untranslated)} fixed string(s) have no {language!r} translation and are printed in English: "
                f"{shown}{' …' if len(untranslated) > 3 else ''} (kitgen translate {language} writes a catalog to fill "
                "in)", figures=(("strings", len(untranslated)),))


def render_kit(loaded: LoadedActivity, options: BuildOptions, library: Library, *,
               several_editions: bool = False, pdf: bool = True, every_problem: bool = False) -> RenderedKit:
    """Check, plan and render every file of a kit in memory (with `pdf`, through the PDF backend too);
    nothing is written. A file that would print host-key material or a character no font has is an error.
    With `every_problem`, what cannot be printed does not stop the render: every card and file is rendered
    and one ContentError lists every problem found."""

    try:
        checked = check_activity(loaded)
    except ContentError as error:  # the cards' pictures need no rendering: `check` lists their problems too
        if not every_problem:
            raise
        raise ContentError(error.problems + card_pictures(loaded)[1]) from None
    activity = loaded.activity
    try:
        font = _library_font(loaded, options, library)
    except ContentError as error:
        if not every_problem:
            raise
        raise ContentError(error.problems + card_pictures(loaded)[1]) from None
    resolved = options.resolve(activity, font)
    plan = _plan(loaded, resolved, size_from_content=not options.card_size)
    stem = kit_folder_name(activity.id, activity.language, several_editions)
    catalogs = library_locale(library.content)
    template_dirs = library.template_dirs(loaded.folder)
    env = environment(tuple(template_dirs), activity.language, catalogs)
    with collecting() as quality, gathering(every_problem) as problems:
        try:
            files = KitRenderer(checked, plan, env, stem, translations(activity.language, catalogs),
                                resolved.style).render()
        except UnprintableContent as error:  # a card of a spreadsheet is named by its cell
            raise UnprintableContent(_at_cells(loaded, str(error))) from None
        except ContentError as error:
            raise ContentError([loaded.source.at_cell(p) for p in error.problems]) from None
    problems[:] = [loaded.source.at_cell(p) for p in problems]
    quality[:] = located(quality, files) + layout_notes(files)
    quality += checked.notes  # numbers typed into the players' texts that repeat a card's data
    quality += _font_notes(resolved.style.font, loaded)
    untranslated = missing_strings(activity.language, catalogs)
    if untranslated:  # printed in English: the catalog says which to fill in
        quality.append(_untranslated_note(activity.language, untranslated))
    problems += leak_problems(host_secrets(activity), files, loaded.source)
    if problems and not every_problem:
        raise ContentError(problems)
    unprintable = unprintable_problems(files, lambda char: _content_field_holding(loaded, char))
    if every_problem:
        problems += [loaded.source.at_cell(found) if (found := Problem.parse(text)) else loaded.source.problem((), text)
                     for text in unprintable]
        if problems:
            raise ContentError(problems)
    elif unprintable:
        raise UnprintableContent(_at_cells(loaded, "\n".join(unprintable)))
    if pdf:
        files = [replace(f, data=write_pdf(_drawn(f))) for f in files]
    summary = {"title": activity.title, "purpose": activity.purpose, "category": activity.category,
               "players": str(activity.players), "minutes": str(activity.minutes), "language": activity.language}
    font_files = [path for path in (font.regular, font.bold, font.licence) if path] if font else []
    inputs = input_record(loaded.files + font_files, templates_used(template_dirs, root_templates(activity)),
                          activity.language, options.recorded(), catalogs, _font_files_to_come(font))
    record = {"activity": activity.id, "language": activity.language, "inputs": inputs,
              "quality": [n.to_json() for n in quality],
              "summary": summary}
    return RenderedKit(options.out_dir / stem, files, record, resolved)


def build_loaded(loaded: LoadedActivity, options: BuildOptions, library: Library, *,
                 several_editions: bool = False) -> BuildResult:
    """Render every file in memory, then every exporter's files from them, and only then write them all."""

    kit = render_kit(loaded, options, library, several_editions=several_editions)
    made = artefacts(kit.files, kit.resolved, options)
    write_outputs(kit.folder, kit.files, kit.record, made)
    result = kit.result()
    result.pictures = [kit.folder / name for name in made]
    return result
