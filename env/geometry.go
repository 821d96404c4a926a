// Package env is the YINSH rules engine: board geometry, the flat action space, game state, notation,
// position text, observation planes, legal masks, board symmetries, hashing and boardspace SGF import.
//
// Conventions used throughout the package:
//   - A cell is an index into the 11×11 grid, cell = col*11 + (row-1), col 0..10 for a..k, row 1..11.
//     Only 85 cells are points of the board; the others are never occupied.
//   - A point is an index 0..84 of a valid cell in column order (a2..a5, b1..b7, …, k7..k10), which is
//     also increasing cell order. Position text and placement/ring-removal action ids use point order.
//   - Lines run along three axes: (0,1), (1,0) and (1,1) in (column, row).
package env

import "fmt"

const (
	// GridSize is the side of the square grid the board is embedded in.
	GridSize = 11
	// NumCells is the number of grid cells (valid or not).
	NumCells = GridSize * GridSize
	// NumPoints is the number of points of the board.
	NumPoints = 85
)

// colRows gives the first and last valid row (1-based) of each column a..k.
var colRows = [GridSize][2]int{
	{2, 5}, {1, 7}, {1, 8}, {1, 9}, {1, 10}, {2, 10}, {2, 11}, {3, 11}, {4, 11}, {5, 11}, {7, 10},
}

// direction deltas in (column, row); opposite directions are adjacent pairs (d, d^1).
var dirs = [6][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, -1}}

// cellStep is the change of cell index for one step in each direction.
var cellStep = [6]int{1, -1, GridSize, -GridSize, GridSize + 1, -GridSize - 1}

var (
	pointCell [NumPoints]uint8 // point index → cell
	cellPoint [NumCells]int8   // cell → point index, -1 where the cell is not on the board
	cellValid [NumCells]bool
	validBits bits128 // every valid cell

	// rays[c][d] lists the cells reached from cell c stepping in direction d, nearest first, until the
	// board edge; rayLen[c][d] is its length.
	rays   [NumCells][6][GridSize]uint8
	rayLen [NumCells][6]uint8
)

// CellOf returns the cell index of column col (0..10) and row (1..11), and whether it is a board point.
func CellOf(col, row int) (int, bool) {
	if col < 0 || col >= GridSize || row < 1 || row > GridSize {
		return -1, false
	}
	c := col*GridSize + row - 1
	return c, cellValid[c]
}

// CellColRow returns the column (0..10) and row (1..11) of a cell.
func CellColRow(c int) (col, row int) { return c / GridSize, c%GridSize + 1 }

// PointCell returns the cell of point index p (0..84).
func PointCell(p int) int { return int(pointCell[p]) }

// CellPoint returns the point index of a cell, or -1 if the cell is not a board point.
func CellPoint(c int) int { return int(cellPoint[c]) }

// CellName returns the notation of a cell, such as "e5".
func CellName(c int) string {
	col, row := CellColRow(c)
	return fmt.Sprintf("%c%d", 'a'+col, row)
}

func init() {
	initGeometry()
	initActions()
	initZobrist()
	initSymmetries()
}

func initGeometry() {
	for i := range cellPoint {
		cellPoint[i] = -1
	}
	p := 0
	for col := 0; col < GridSize; col++ {
		for row := colRows[col][0]; row <= colRows[col][1]; row++ {
			c := col*GridSize + row - 1
			cellValid[c] = true
			cellPoint[c] = int8(p)
			pointCell[p] = uint8(c)
			validBits = validBits.set(c)
			p++
		}
	}
	if p != NumPoints {
		panic(fmt.Sprintf("env: board has %d points, want %d", p, NumPoints))
	}
	for c := 0; c < NumCells; c++ {
		if !cellValid[c] {
			continue
		}
		col, row := CellColRow(c)
		for d := 0; d < 6; d++ {
			n := 0
			for k := 1; ; k++ {
				nc, ok := CellOf(col+k*dirs[d][0], row+k*dirs[d][1])
				if !ok {
					break
				}
				rays[c][d][n] = uint8(nc)
				n++
			}
			rayLen[c][d] = uint8(n)
		}
	}
}
