/// A plain-text table with aligned columns; a cell may hold several lines.
struct Table {
    /// Column titles.
    let header: [String]
    /// Rows of cells, one cell per column; a cell's lines are separated by `\n`.
    var rows: [[String]] = []
    /// Text printed under each row (by index), indented and wrapped to the table's width (at least
    /// ``noteWidth``), outside the columns; a blank line then separates it from the next row.
    var notes: [Int: String] = [:]

    /// The narrowest width notes are wrapped to.
    static let noteWidth = 80

    /// The table as text: header, a rule, then the rows, columns two spaces apart, each line
    /// ending in a newline.
    func render() -> String {
        let split = ([header] + rows).map { row in
            row.map { cell in cell.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        }
        var widths = Array(repeating: 0, count: header.count)
        for row in split {
            for (column, lines) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], lines.map(\.count).max() ?? 0)
            }
        }
        let width = max(Self.noteWidth, widths.reduce(0, +) + 2 * (widths.count - 1))
        var text = ""
        for (index, row) in split.enumerated() {
            let height = row.map(\.count).max() ?? 1
            for line in 0..<height {
                let cells = widths.indices.map { column in
                    let lines = column < row.count ? row[column] : []
                    return Format.pad(line < lines.count ? lines[line] : "", widths[column])
                }
                text += trimmedRight(cells.joined(separator: "  ")) + "\n"
            }
            if index > 0, let note = notes[index - 1] {
                text += Self.wrapped(note, width: width, indent: "  ").map { $0 + "\n" }.joined()
                if index < split.count - 1 { text += "\n" }
            }
            if index == 0 {
                text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            }
        }
        return text
    }

    /// `text` broken at spaces into lines of at most `width` characters, each after `indent`
    /// (a word longer than a line gets a line of its own).
    static func wrapped(_ text: String, width: Int, indent: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent.count + line.count + 1 + word.count > width {
                lines.append(indent + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(indent + line) }
        return lines
    }

    private func trimmedRight(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
