/// A plain-text table with aligned columns; a cell may hold several lines.
struct Table {
    /// Column titles.
    let header: [String]
    /// Rows of cells, one cell per column; a cell's lines are separated by `\n`.
    var rows: [[String]] = []

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
            if index == 0 {
                text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            }
        }
        return text
    }

    private func trimmedRight(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
